import { describe, expect, it } from 'vitest';
import { ChatClientError, ConfigError, TimeoutError, ToolError } from './error-classes.js';
import { getErrorMessage, RafError } from './raf-error.js';

describe('RafError', () => {
  it('brands subclasses so isInstance works without instanceof', () => {
    const error = new ConfigError('bad field');
    expect(RafError.isInstance(error)).toBe(true);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(ToolError.isInstance(error)).toBe(false);
    expect(RafError.isInstance(new Error('plain'))).toBe(false);
    expect(RafError.isInstance(null)).toBe(false);
  });

  it('recognises an error from another copy of the package by its Symbol.for brand', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('raf.error')]: true,
      [Symbol.for('raf.error.ConfigError')]: true,
    });
    expect(ConfigError.isInstance(foreign)).toBe(true);
  });

  it('keeps a stable code and the cause', () => {
    const cause = new Error('socket hang up');
    const error = new ChatClientError('request failed', { cause, status: 502, retryable: true });
    expect(error.code).toBe('RAF_CHAT_CLIENT');
    expect(error.cause).toBe(cause);
    expect(error.status).toBe(502);
    expect(error.toJSON()).toEqual({
      name: 'ChatClientError',
      code: 'RAF_CHAT_CLIENT',
      message: 'request failed',
    });
    expect(new TimeoutError('slow', { phase: 'idle', timeoutMs: 5 }).code).toBe('RAF_TIMEOUT');
  });

  it('getErrorMessage reads anything thrown', () => {
    expect(getErrorMessage(new Error('a'))).toBe('a');
    expect(getErrorMessage('b')).toBe('b');
    expect(getErrorMessage({ c: 1 })).toBe('{"c":1}');
    expect(getErrorMessage(undefined)).toBe('unknown error');
  });
});
