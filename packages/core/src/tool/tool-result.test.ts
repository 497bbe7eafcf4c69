import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/error-classes.js';
import {
  parseToolResult,
  safeParseToolResult,
  serializeToolResult,
  toolFailure,
  toolSuccess,
} from './tool-result.js';

describe('ToolResult', () => {
  it('serializes without absent fields, as the model reads it', () => {
    expect(serializeToolResult(toolSuccess({ n: 1 }))).toBe('{"ok":true,"data":{"n":1}}');
    expect(serializeToolResult(toolSuccess())).toBe('{"ok":true}');
    expect(serializeToolResult(toolFailure('File not found: a.txt'))).toBe(
      '{"ok":false,"error":"File not found: a.txt"}',
    );
    expect(toolFailure('partial', { written: 3 })).toEqual({
      ok: false,
      error: 'partial',
      data: { written: 3 },
    });
  });

  it('parses a result back from its JSON text', () => {
    expect(parseToolResult('{"ok":false,"error":"x"}')).toEqual({ ok: false, error: 'x' });
    expect(safeParseToolResult('{not json')).toEqual({
      success: false,
      error: 'tool result is not valid JSON',
    });
    expect(safeParseToolResult({ ok: 'yes' }).success).toBe(false);
    expect(safeParseToolResult({ ok: false, error: 5 }).success).toBe(false);
    expect(() => parseToolResult([])).toThrow(ValidationError);
  });
});
