import { ValidationError } from '../errors/error-classes.js';
import type { JSONValue } from '../json/json.js';
import { type ChatMessage, toolMessage } from '../messages/chat-message.js';
import { type ContentPart, isContentPart } from '../messages/content-part.js';

/**
 * What a tool returns. Business failures (missing file, outside scope) are `{ ok: false, error }`
 * and the model reads them; crashes are thrown and become `Framework error: …`.
 * Absent fields are omitted, so the model sees `{"ok":true,"data":…}` or `{"ok":false,"error":…}`.
 */
export interface ToolResult {
  ok: boolean;
  data?: JSONValue;
  error?: string;
  /**
   * Media the model sees beside the result's JSON (the image a `read_file` opened): the tool
   * message's parts after its text. Not part of the JSON text.
   */
  parts?: readonly ContentPart[];
}

export function toolSuccess(data?: JSONValue): ToolResult {
  return data === undefined ? { ok: true } : { ok: true, data };
}

export function toolFailure(error: string, data?: JSONValue): ToolResult {
  return data === undefined ? { ok: false, error } : { ok: false, error, data };
}

/** The exact text placed in the `tool` message the model reads. */
export function serializeToolResult(result: ToolResult): string {
  if (result.parts === undefined) return JSON.stringify(result);
  const { parts: _media, ...json } = result;
  return JSON.stringify(json);
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type SafeParseToolResult = { success: true; value: ToolResult } | { success: false; error: string };

/** Reads a `ToolResult` back from a tool message or a serialized session. */
export function safeParseToolResult(input: unknown): SafeParseToolResult {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      return { success: false, error: 'tool result is not valid JSON' };
    }
  }
  if (!isJsonObject(value) || typeof value.ok !== 'boolean') {
    return { success: false, error: 'tool result must be an object with a boolean "ok"' };
  }
  if (value.error !== undefined && typeof value.error !== 'string') {
    return { success: false, error: 'tool result "error" must be a string' };
  }
  const result: ToolResult = { ok: value.ok };
  if (value.data !== undefined) result.data = value.data as JSONValue;
  if (value.error !== undefined) result.error = value.error;
  if (value.parts !== undefined) {
    if (!Array.isArray(value.parts) || !value.parts.every(isContentPart))
      return { success: false, error: 'tool result "parts" must be content parts (text, image, file)' };
    result.parts = value.parts;
  }
  return { success: true, value: result };
}

/** Like `safeParseToolResult`, but throws a `ValidationError`. */
export function parseToolResult(input: unknown): ToolResult {
  const parsed = safeParseToolResult(input);
  if (!parsed.success) throw new ValidationError(parsed.error);
  return parsed.value;
}

/** The `tool` message of a result: its JSON text, then its media parts when it has any. */
export function toolResultMessage(result: ToolResult, toolCallId: string): ChatMessage {
  const text = serializeToolResult(result);
  if (!result.parts || result.parts.length === 0) return toolMessage(text, toolCallId);
  return toolMessage([{ type: 'text', text }, ...result.parts], toolCallId);
}
