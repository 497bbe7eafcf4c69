import { describe, expect, it } from 'vitest';
import { AbortHandle } from './abort-handle.js';

describe('AbortHandle', () => {
  it('runs each listener once, with the reason set, and ignores a second abort', () => {
    const handle = new AbortHandle();
    const seen: unknown[] = [];
    handle.on('abort', () => seen.push(handle.reason));
    handle.once('abort', () => seen.push('once'));
    handle.abort('first');
    handle.abort('second');
    expect(seen).toEqual(['first', 'once']);
    expect(handle.aborted).toBe(true);
  });

  it('does not run a removed listener, and gives a default reason', () => {
    const handle = new AbortHandle();
    let calls = 0;
    const listener = () => calls++;
    handle.on('abort', listener);
    handle.removeListener('abort', listener);
    handle.abort();
    expect(calls).toBe(0);
    expect(handle.reason).toBeInstanceOf(Error);
  });

  it('looks like an EventEmitter to undici, not an EventTarget', () => {
    expect('addEventListener' in new AbortHandle()).toBe(false);
  });
});
