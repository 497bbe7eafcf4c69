import type { CallToolResult, ContentBlock, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { type JSONValue, type ToolResult, toolFailure, toolSuccess } from '@raf/core';
import { part, resourcePart } from './content-part.js';
import { capCallResult, capResourceResult, type Truncation } from './result-cap.js';

/** Servers repeat `structuredContent` as a JSON text block for old clients: sent once is enough. */
function repeatsStructured(text: string, structured: unknown): boolean {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return false;
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(structured);
  } catch {
    return false;
  }
}

/**
 * A `tools/call` result as the model reads it: text alone is a string; images, audio and
 * resources are data parts beside the text (`{ content: [...] }`); `structuredContent` is kept as
 * is. `isError` results are `ok: false` with the server's text as the error.
 */
export function toToolResult(result: CallToolResult, toolName: string, maxResultBytes?: number): ToolResult {
  if (maxResultBytes === undefined) return convert(result, toolName);
  const { result: capped, truncation } = capCallResult(result, maxResultBytes);
  const converted = convert(capped, toolName);
  return truncation ? withTruncation(converted, truncation) : converted;
}

/** `truncated` where the model reads it: beside the text (then an object) or in the data object. */
function withTruncation(result: ToolResult, truncation: Truncation): ToolResult {
  const marks = { ...truncation } as unknown as Record<string, JSONValue>;
  if (!result.ok) {
    const data = result.data;
    const extra =
      data && typeof data === 'object' && !Array.isArray(data) ? { ...data, ...marks } : { ...marks };
    return toolFailure(result.error ?? 'error', extra);
  }
  const data = result.data;
  if (typeof data === 'string') return toolSuccess({ text: data, ...marks });
  if (data && typeof data === 'object' && !Array.isArray(data)) return toolSuccess({ ...data, ...marks });
  return toolSuccess({ ...(data !== undefined && { data }), ...marks });
}

function convert(result: CallToolResult, toolName: string): ToolResult {
  const blocks = (result.content ?? []) as ContentBlock[];
  if (result.structuredContent === undefined) {
    // The common answer, text only, without building parts.
    let text = '';
    let onlyText = true;
    for (let i = 0; i < blocks.length; i++) {
      const block = blocks[i]!;
      if (block.type !== 'text') {
        onlyText = false;
        break;
      }
      text = i === 0 ? block.text : `${text}\n${block.text}`;
    }
    if (onlyText)
      return result.isError ? toolFailure(text || `${toolName} reported an error`) : toolSuccess(text);
  }
  const structured = result.structuredContent as JSONValue | undefined;
  const texts: string[] = [];
  const parts: JSONValue[] = [];
  let onlyText = true;
  for (const block of blocks) {
    if (block.type === 'text') {
      if (structured !== undefined && repeatsStructured(block.text, structured)) continue;
      texts.push(block.text);
    } else onlyText = false;
    parts.push(part(block));
  }
  const text = texts.join('\n');
  if (result.isError) {
    const extra =
      structured !== undefined
        ? { structuredContent: structured }
        : onlyText
          ? undefined
          : // The text is the error already: once is enough (and within the cap).
            { content: parts.filter((p) => (p as { type?: unknown }).type !== 'text') };
    return toolFailure(text || `${toolName} reported an error`, extra);
  }
  if (structured !== undefined) {
    if (parts.length === 0) return toolSuccess({ structuredContent: structured });
    return toolSuccess({ structuredContent: structured, ...(onlyText ? { text } : { content: parts }) });
  }
  if (onlyText) return toolSuccess(text);
  return toolSuccess({ content: parts });
}

/** `resources/read` contents: text as is, binary as `{ type: 'image' | 'resource', … }` parts; cut to `maxResultBytes`. */
export function resourceContents(read: ReadResourceResult, maxResultBytes?: number): JSONValue {
  if (maxResultBytes === undefined) return contentsOf(read);
  const { result, truncation } = capResourceResult(read, maxResultBytes);
  const value = contentsOf(result);
  if (!truncation) return value;
  const marks = { ...truncation } as unknown as Record<string, JSONValue>;
  return typeof value === 'string'
    ? { text: value, ...marks }
    : { ...(value as Record<string, JSONValue>), ...marks };
}

function contentsOf(result: ReadResourceResult): JSONValue {
  const parts = result.contents.map(resourcePart);
  const only = parts.length === 1 ? (parts[0] as Record<string, JSONValue>) : undefined;
  return only && typeof only.text === 'string' && !('type' in only) ? only.text : { contents: parts };
}
