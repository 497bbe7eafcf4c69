import type { CallToolResult, ContentBlock, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { nestsDeeperThan } from '@raf/core/internal';

/**
 * What of a server's answer may reach the model (issue 26: an 8 MB result went into the next
 * request whole and stayed in the session). Like the web tools' `maxChars`: text is cut, a binary
 * part (image, audio, blob) that does not fit is left out whole (half an image is no image), and
 * the result says `truncated` with the size the server sent.
 */
export const DEFAULT_MAX_RESULT_BYTES = 128 * 1024;
/** Every request carries every tool's description: one server's 2 MB essay must not. */
export const DEFAULT_MAX_DESCRIPTION_BYTES = 4 * 1024;

export interface Truncation {
  truncated: true;
  /** Bytes the server's answer had (text in UTF-8, binary parts as sent, base64). */
  totalBytes: number;
  maxResultBytes: number;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * How deep a server's `structuredContent` may nest. JSON.stringify, the session's schema and the
 * model clients all recurse: a 100,000-deep value (a few hundred KB) overflowed the stack and the
 * call failed with "Maximum call stack size exceeded". Real results are a few levels deep.
 */
export const MAX_STRUCTURED_DEPTH = 64;

/** The first `budget` bytes of `text` in UTF-8, never half a character. */
export function cutText(text: string, budget: number): string {
  if (budget <= 0) return '';
  // A UTF-16 unit is at most 3 bytes in UTF-8: short texts skip the count.
  if (text.length * 3 <= budget || bytes(text) <= budget) return text;
  return Buffer.from(text, 'utf8')
    .subarray(0, budget)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/** A description within `max` bytes, `…` where it was cut. */
export function capDescription(text: string, max: number): string {
  return bytes(text) <= max ? text : `${cutText(text, Math.max(0, max - 3))}…`;
}

function blockBytes(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return bytes(block.text);
    case 'image':
    case 'audio':
      return block.data.length;
    case 'resource':
      return 'text' in block.resource ? bytes(block.resource.text) : block.resource.blob.length;
    default:
      return bytes(JSON.stringify(block));
  }
}

function leftOut(what: string, size: number, max: number): ContentBlock {
  return {
    type: 'text',
    text: `[${what} of ${size} bytes left out: the result is over maxResultBytes (${max})]`,
  };
}

/** A `tools/call` result within `max` bytes, and what was cut. */
export function capCallResult(
  result: CallToolResult,
  max: number,
): { result: CallToolResult; truncation?: Truncation } {
  const blocks = (result.content ?? []) as ContentBlock[];
  if (
    result.structuredContent !== undefined &&
    nestsDeeperThan(result.structuredContent, MAX_STRUCTURED_DEPTH)
  )
    return dropDeepStructured(result, blocks, max);
  const structuredBytes =
    result.structuredContent === undefined ? 0 : bytes(JSON.stringify(result.structuredContent));
  let total = structuredBytes;
  for (const block of blocks) total += blockBytes(block);
  if (total <= max) return { result };
  let budget = max;
  const capped: CallToolResult = { ...result };
  // Structured content cannot be cut and stay valid: kept whole or dropped (the text copy servers
  // send beside it is then what the model reads, cut like any text).
  if (result.structuredContent !== undefined) {
    if (structuredBytes <= budget) budget -= structuredBytes;
    else delete capped.structuredContent;
  }
  capped.content = blocks.map((block): ContentBlock => {
    const size = blockBytes(block);
    if (block.type === 'text') {
      const text = cutText(block.text, budget);
      budget -= bytes(text);
      return text === block.text ? block : { ...block, text };
    }
    if (size <= budget) {
      budget -= size;
      return block;
    }
    const what = 'mimeType' in block && block.mimeType ? `${block.mimeType} ${block.type}` : block.type;
    return leftOut(what, size, max);
  });
  return { result: capped, truncation: { truncated: true, totalBytes: total, maxResultBytes: max } };
}

/** The result without its too deeply nested `structuredContent` (its size is not even measured). */
function dropDeepStructured(
  result: CallToolResult,
  blocks: ContentBlock[],
  max: number,
): { result: CallToolResult; truncation: Truncation } {
  const { structuredContent: _dropped, ...rest } = result;
  const note: ContentBlock = {
    type: 'text',
    text: `[structured content left out: nested deeper than ${MAX_STRUCTURED_DEPTH} levels]`,
  };
  const capped = capCallResult({ ...rest, content: [...blocks, note] }, max);
  const totalBytes = capped.truncation?.totalBytes ?? blocks.reduce((sum, b) => sum + blockBytes(b), 0);
  return { result: capped.result, truncation: { truncated: true, totalBytes, maxResultBytes: max } };
}

/** A `resources/read` result within `max` bytes, and what was cut. */
export function capResourceResult(
  result: ReadResourceResult,
  max: number,
): { result: ReadResourceResult; truncation?: Truncation } {
  const size = (c: ReadResourceResult['contents'][number]) =>
    'text' in c && typeof c.text === 'string'
      ? bytes(c.text)
      : String((c as { blob?: string }).blob ?? '').length;
  const total = result.contents.reduce((sum, c) => sum + size(c), 0);
  if (total <= max) return { result };
  let budget = max;
  const contents = result.contents.map((content) => {
    if ('text' in content && typeof content.text === 'string') {
      const text = cutText(content.text, budget);
      budget -= bytes(text);
      return { ...content, text };
    }
    const n = size(content);
    if (n <= budget) {
      budget -= n;
      return content;
    }
    return {
      uri: content.uri,
      text: `[${content.mimeType ?? 'binary'} content of ${n} bytes left out: over maxResultBytes (${max})]`,
    };
  });
  return {
    result: { ...result, contents },
    truncation: { truncated: true, totalBytes: total, maxResultBytes: max },
  };
}
