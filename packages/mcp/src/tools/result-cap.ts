import type {
  CallToolResult,
  ContentBlock,
  PromptMessage,
  ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { nestsDeeperThan } from '@raf/core/internal';
import { part, resourcePart } from './content-part.js';

/**
 * What of a server's answer may reach the model (issue 26: an 8 MB result went into the next
 * request whole and stayed in the session). Like the web tools' `maxChars`: text is cut, a binary
 * part (image, audio, blob) that does not fit is left out whole (half an image is no image), and
 * the result says `truncated` with the size the server sent. The cap is on what the model and the
 * session get, serialized: every block costs its JSON (quotes, escapes, `type`, `mimeType`, `uri`,
 * the separator), not only its text or data, so empty blocks are not free.
 */
export const DEFAULT_MAX_RESULT_BYTES = 128 * 1024;
/** Every request carries every tool's description: one server's 2 MB essay must not. */
export const DEFAULT_MAX_DESCRIPTION_BYTES = 4 * 1024;
/**
 * How many content blocks of a tool result, entries of a resource or messages of a prompt are
 * kept; the rest are left out with `truncated: true` and a note. 150,000 empty image blocks were an
 * 8.4 MB result and 350,000 empty text blocks 350 KB of newlines while their data counted 0 bytes.
 */
export const MAX_RESULT_BLOCKS = 256;

export interface Truncation {
  truncated: true;
  /** Bytes the server's answer had (text in UTF-8, binary parts as sent, base64). */
  totalBytes: number;
  maxResultBytes: number;
  /** How many blocks (entries, messages) the server sent, when some were left out. */
  totalBlocks?: number;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** Bytes `value` takes in the JSON of the model request and of the session. */
const jsonBytes = (value: unknown) => bytes(JSON.stringify(value) ?? '');
/** Bytes `text` takes inside a JSON string: escapes counted, the quotes not. */
const escapedBytes = (text: string) => jsonBytes(text) - 2;

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

/** The longest start of `text` whose JSON string form (escapes included) is within `budget` bytes. */
export function cutJsonText(text: string, budget: number): string {
  if (budget <= 0) return '';
  if (escapedBytes(text) <= budget) return text;
  // Escaping only adds bytes: the raw cut is an upper bound, at most `budget` long.
  const raw = cutText(text, budget);
  if (escapedBytes(raw) <= budget) return raw;
  let low = 0;
  let high = raw.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (escapedBytes(raw.slice(0, mid)) <= budget) low = mid;
    else high = mid - 1;
  }
  // Never half a surrogate pair (it would be escaped as a lone surrogate).
  const code = raw.charCodeAt(low - 1);
  return raw.slice(0, code >= 0xd800 && code <= 0xdbff ? low - 1 : low);
}

/** A description within `max` bytes, `…` where it was cut. */
export function capDescription(text: string, max: number): string {
  return bytes(text) <= max ? text : `${cutText(text, Math.max(0, max - 3))}…`;
}

/** The payload of a block, as `totalBytes` reports it. */
function payloadBytes(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return bytes(block.text);
    case 'image':
    case 'audio':
      return block.data.length;
    case 'resource':
      return 'text' in block.resource ? bytes(block.resource.text) : block.resource.blob.length;
    default:
      return jsonBytes(block);
  }
}

/** What one item costs as the model reads it, and its text cut to a budget (undefined: it cannot be). */
interface Sizer<T> {
  size(item: T): number;
  cut(item: T, budget: number): T | undefined;
}

interface Fitted<T> {
  kept: T[];
  /** How many were left out, the first of them, and where in `kept` its note goes. */
  dropped: number;
  first?: T;
  at: number;
  cut: boolean;
}

/** The items that fit `max` bytes and `MAX_RESULT_BLOCKS`, in order; text cut where it stops fitting. */
function fit<T>(items: readonly T[], max: number, sizer: Sizer<T>): Fitted<T> {
  let budget = max;
  const fitted: Fitted<T> = { kept: [], dropped: 0, at: 0, cut: false };
  for (const item of items) {
    if (fitted.kept.length < MAX_RESULT_BLOCKS) {
      const size = sizer.size(item);
      if (size <= budget) {
        fitted.kept.push(item);
        budget -= size;
        continue;
      }
      const smaller = budget > 0 ? sizer.cut(item, budget) : undefined;
      const smallerSize = smaller === undefined ? Number.POSITIVE_INFINITY : sizer.size(smaller);
      if (smaller !== undefined && smallerSize <= budget) {
        fitted.kept.push(smaller);
        budget -= smallerSize;
        fitted.cut = true;
        continue;
      }
    }
    if (fitted.dropped === 0) {
      fitted.first = item;
      fitted.at = fitted.kept.length;
    }
    fitted.dropped++;
  }
  return fitted;
}

/** The kept items with the note where the first left-out one was. */
function withNote<T>(fitted: Fitted<T>, note: (first: T) => T): T[] {
  if (fitted.dropped === 0 || fitted.first === undefined) return fitted.kept;
  const out = [...fitted.kept];
  out.splice(fitted.at, 0, note(fitted.first));
  return out;
}

// `mimeType` and `type` come from the server: named in a note only when short and plain.
const plainMime = (mime: unknown) =>
  typeof mime === 'string' && /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(mime) ? mime : undefined;
const KNOWN_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

function manyLeftOut(dropped: number, total: number, max: number, what = 'content blocks'): string {
  return `[${dropped} of ${total} ${what} left out: a result keeps at most ${MAX_RESULT_BLOCKS} within maxResultBytes (${max})]`;
}

const blockSizer: Sizer<ContentBlock> = {
  // `+ 1`: the separator (`,` between parts, `\n` between texts).
  size: (block) => jsonBytes(part(block)) + 1,
  cut(block, budget) {
    if (block.type !== 'text') return undefined;
    const overhead = blockSizer.size(block) - escapedBytes(block.text);
    const text = cutJsonText(block.text, budget - overhead);
    return text ? { ...block, text } : undefined;
  },
};

function blockNote(fitted: Fitted<ContentBlock>, total: number, max: number) {
  return (first: ContentBlock): ContentBlock => {
    if (fitted.dropped > 1 || first.type === 'text')
      return { type: 'text', text: manyLeftOut(fitted.dropped, total, max) };
    const type = KNOWN_TYPES.has(first.type) ? first.type : 'content block';
    const mime = plainMime((first as { mimeType?: unknown }).mimeType);
    const what = mime ? `${mime} ${type}` : type;
    return {
      type: 'text',
      text: `[${what} of ${payloadBytes(first)} bytes left out: the result is over maxResultBytes (${max})]`,
    };
  };
}

/** A `tools/call` result within `max` bytes and `MAX_RESULT_BLOCKS` blocks, and what was cut. */
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
  const structuredBytes = result.structuredContent === undefined ? 0 : jsonBytes(result.structuredContent);
  // Structured content cannot be cut and stay valid: kept whole or dropped (the text copy servers
  // send beside it is then what the model reads, cut like any text).
  const keepStructured = structuredBytes <= max;
  const fitted = fit(blocks, keepStructured ? max - structuredBytes : max, blockSizer);
  if (keepStructured && !fitted.cut && fitted.dropped === 0) return { result };
  const capped: CallToolResult = { ...result };
  if (!keepStructured) delete capped.structuredContent;
  capped.content = withNote(fitted, blockNote(fitted, blocks.length, max));
  let totalBytes = structuredBytes;
  for (const block of blocks) totalBytes += payloadBytes(block);
  return {
    result: capped,
    truncation: {
      truncated: true,
      totalBytes,
      maxResultBytes: max,
      ...(fitted.dropped > 0 && { totalBlocks: blocks.length }),
    },
  };
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
  // The note first: blocks past the limit are left out, the note must not be.
  const capped = capCallResult({ ...rest, content: [note, ...blocks] }, max);
  const totalBytes = capped.truncation?.totalBytes ?? blocks.reduce((sum, b) => sum + payloadBytes(b), 0);
  return {
    result: capped.result,
    truncation: { ...capped.truncation, truncated: true, totalBytes, maxResultBytes: max },
  };
}

type ResourceEntry = ReadResourceResult['contents'][number];
const isText = (c: ResourceEntry): c is ResourceEntry & { text: string } =>
  'text' in c && typeof c.text === 'string';
const entryBytes = (c: ResourceEntry) =>
  isText(c) ? bytes(c.text) : String((c as { blob?: string }).blob ?? '').length;

const resourceSizer: Sizer<ResourceEntry> = {
  size: (entry) => jsonBytes(resourcePart(entry)) + 1,
  cut(entry, budget) {
    if (!isText(entry)) return undefined;
    const overhead = resourceSizer.size(entry) - escapedBytes(entry.text);
    const text = cutJsonText(entry.text, budget - overhead);
    return text ? { ...entry, text } : undefined;
  },
};

/** A `resources/read` result within `max` bytes and `MAX_RESULT_BLOCKS` entries, and what was cut. */
export function capResourceResult(
  result: ReadResourceResult,
  max: number,
): { result: ReadResourceResult; truncation?: Truncation } {
  const fitted = fit(result.contents, max, resourceSizer);
  if (!fitted.cut && fitted.dropped === 0) return { result };
  const contents = withNote(fitted, (first): ResourceEntry => {
    // The note names the entry's URI only when short: a server's 1 MB URI is no note.
    const uri = bytes(first.uri) <= 256 ? first.uri : '';
    if (fitted.dropped > 1 || isText(first))
      return { uri, text: manyLeftOut(fitted.dropped, result.contents.length, max, 'resource entries') };
    const mime = plainMime(first.mimeType) ?? 'binary';
    return {
      uri,
      text: `[${mime} content of ${entryBytes(first)} bytes left out: over maxResultBytes (${max})]`,
    };
  });
  return {
    result: { ...result, contents },
    truncation: {
      truncated: true,
      totalBytes: result.contents.reduce((sum, c) => sum + entryBytes(c), 0),
      maxResultBytes: max,
      ...(fitted.dropped > 0 && { totalBlocks: result.contents.length }),
    },
  };
}

// `{"role":…,"content":{"content":[…]}}`: what a message adds around its block, at most.
const MESSAGE_OVERHEAD = 48;
const promptSizer: Sizer<PromptMessage> = {
  size: (message) => blockSizer.size(message.content) + jsonBytes(message.role) + MESSAGE_OVERHEAD,
  cut(message, budget) {
    const content = blockSizer.cut(message.content, budget - jsonBytes(message.role) - MESSAGE_OVERHEAD);
    return content ? { ...message, content } : undefined;
  },
};

/** A prompt's messages within `max` bytes and `MAX_RESULT_BLOCKS` messages, what was cut, and a note. */
export function capPromptMessages(
  messages: readonly PromptMessage[],
  max: number,
): { messages: readonly PromptMessage[]; truncation?: Truncation; note?: string } {
  const fitted = fit(messages, max, promptSizer);
  if (!fitted.cut && fitted.dropped === 0) return { messages };
  return {
    messages: fitted.kept,
    truncation: {
      truncated: true,
      totalBytes: messages.reduce((sum, m) => sum + payloadBytes(m.content), 0),
      maxResultBytes: max,
      ...(fitted.dropped > 0 && { totalBlocks: messages.length }),
    },
    ...(fitted.dropped > 0 && { note: manyLeftOut(fitted.dropped, messages.length, max, 'messages') }),
  };
}
