import { RafError } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { createFileTool } from '../builtin-tools/index.js';
import { PathChangedError, PathRejectedError, ToolFailure } from './tool-errors.js';

describe('errors the tools throw across packages', () => {
  it('are RafErrors with a stable code, told apart by their brand', () => {
    const failure = new ToolFailure('No such file');
    const rejected = new PathRejectedError('NUL byte in path');
    const changed = new PathChangedError('/w/sub/file');
    expect([failure.code, rejected.code, changed.code]).toEqual([
      'RAF_TOOL_FAILURE',
      'RAF_PATH_REJECTED',
      'RAF_PATH_CHANGED',
    ]);
    expect([failure, rejected, changed].every((e) => RafError.isInstance(e))).toBe(true);
    expect(ToolFailure.isInstance(failure)).toBe(true);
    expect(ToolFailure.isInstance(rejected)).toBe(false);
    expect(PathRejectedError.isInstance(rejected)).toBe(true);
    expect(PathChangedError.isInstance(changed)).toBe(true);
    expect(changed.message).toMatch(/^'\/w\/sub\/file' changed while in use/);
    expect(rejected.toJSON()).toEqual({
      name: 'PathRejectedError',
      code: 'RAF_PATH_REJECTED',
      message: 'NUL byte in path',
    });
  });

  it('recognises one from another copy of the package by its Symbol.for brand', () => {
    const foreign = Object.assign(new Error('outside'), {
      [Symbol.for('raf.error')]: true,
      [Symbol.for('raf.error.PathRejectedError')]: true,
    });
    expect(PathRejectedError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof PathRejectedError).toBe(false);
  });

  it('turns a rejected path into a result the model reads (the tools check the brand)', async () => {
    const read = createFileTool('read_file');
    const result = await read.execute(
      { path: 'a\u0000b' },
      { signal: new AbortController().signal, callId: 'c1' },
    );
    expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/NUL/) });
  });
});
