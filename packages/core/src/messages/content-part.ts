/**
 * The pieces a message's content can be made of besides plain text. Bytes travel as base64 text so
 * a message is JSON as it is (sessions, journals, worker messages store it without a conversion).
 */
export interface TextPart {
  type: 'text';
  text: string;
}

/** An image by URL (the provider fetches it) or by bytes (`data`, base64) with its media type. */
export type ImagePart =
  | { type: 'image'; url: string; mediaType?: string }
  | { type: 'image'; data: string; mediaType: string };

/** A document (a PDF, a text file) by bytes (`data`, base64), its media type and its file name. */
export interface FilePart {
  type: 'file';
  data: string;
  mediaType: string;
  name: string;
}

export type ContentPart = TextPart | ImagePart | FilePart;

/** A message's content: plain text, or parts when it carries images or files. */
export type MessageContent = string | readonly ContentPart[];

/** What a model must accept for a message to reach it. */
export interface ContentCapabilities {
  /** Image parts (`image`). */
  images?: boolean;
  /** File parts (`file`: PDF and other documents). */
  files?: boolean;
}

export function textPart(text: string): TextPart {
  return { type: 'text', text };
}

/** An image part: a URL string, or bytes with their media type. */
export function imagePart(source: string | Uint8Array, mediaType?: string): ImagePart {
  if (typeof source === 'string')
    return mediaType ? { type: 'image', url: source, mediaType } : { type: 'image', url: source };
  return { type: 'image', data: bytesToBase64(source), mediaType: mediaType ?? 'application/octet-stream' };
}

export function filePart(bytes: Uint8Array, mediaType: string, name: string): FilePart {
  return { type: 'file', data: bytesToBase64(bytes), mediaType, name };
}

/**
 * The text of a message's content: the string itself, or its text parts joined by new lines (an
 * image or a file has no text). The many readers that only want words (token counts, history,
 * summaries, memory) read this instead of `.content`.
 */
export function messageText(message: { content: MessageContent }): string {
  return contentText(message.content);
}

export function contentText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  let text = '';
  let first = true;
  for (const part of content) {
    if (part.type !== 'text') continue;
    text += first ? part.text : `\n${part.text}`;
    first = false;
  }
  return text;
}

/** Whether the content has a part other than text. */
export function hasMediaParts(content: MessageContent): boolean {
  return typeof content !== 'string' && content.some((part) => part.type !== 'text');
}

/** The content's parts (a string is one text part; an empty string none). */
export function contentParts(content: MessageContent): readonly ContentPart[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}

/** A short line naming a media part for readers that cannot see it (`[image image/png]`). */
export function describePart(part: ContentPart): string {
  if (part.type === 'text') return part.text;
  if (part.type === 'file')
    return `[file ${part.name} (${part.mediaType}, ${base64ByteLength(part.data)} bytes)]`;
  if ('url' in part) return `[image ${part.url}]`;
  return `[image ${part.mediaType}, ${base64ByteLength(part.data)} bytes]`;
}

/** The bytes a base64 text decodes to, without decoding it. */
export function base64ByteLength(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

// btoa is in every runtime core targets (Node ≥ 16, browsers, workers); chunks keep the spread
// argument list small.
function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

/**
 * The first part a model without the capability cannot take, as a sentence (undefined when all
 * can go). Clients call it before a request so the failure names the model and the setting.
 */
export function unsupportedContentProblem(
  messages: readonly { content: MessageContent }[],
  capabilities: ContentCapabilities | undefined,
  modelId: string,
): string | undefined {
  for (const [index, message] of messages.entries()) {
    // A tool's media is described instead (`withinCapabilities`): only what the user sent fails.
    if (typeof message.content === 'string' || (message as { role?: string }).role === 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'image' && !capabilities?.images) {
        return `model "${modelId}" does not take images (message ${index} has one): use a model that does, or set model.capabilities.images: true if it does`;
      }
      if (part.type === 'file' && !capabilities?.files) {
        return `model "${modelId}" does not take files (message ${index} has ${part.name}): use a model that does, or set model.capabilities.files: true if it does`;
      }
    }
  }
  return undefined;
}

/** The content as text for a reader that cannot see media: text parts as they are, the others named. */
export function describeContent(content: MessageContent): string {
  return typeof content === 'string' ? content : content.map(describePart).join('\n');
}

// By file-name extension: what `--attach`, the studio and `read_file` can hand a model.
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
};

/** Every media type a file name maps to (the attachment limits' allowed set). */
export const NAMED_MEDIA_TYPES: readonly string[] = [...new Set(Object.values(MEDIA_TYPES))];

/** The media type of a file name a model can be given (`photo.PNG` → `image/png`), or undefined. */
export function mediaTypeOfName(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : MEDIA_TYPES[name.slice(dot + 1).toLowerCase()];
}

/** A part for a file's bytes: an image part for an image type, else a file part. */
export function partForFile(bytes: Uint8Array, mediaType: string, name: string): ImagePart | FilePart {
  return mediaType.startsWith('image/') ? imagePart(bytes, mediaType) : filePart(bytes, mediaType, name);
}

function takes(part: ContentPart, capabilities: ContentCapabilities | undefined): boolean {
  if (part.type === 'image') return capabilities?.images === true;
  if (part.type === 'file') return capabilities?.files === true;
  return true;
}

/**
 * The messages a model with these capabilities can read: media in tool results it cannot take (a
 * `read_file` of a picture for a text-only model) become a line describing them. The same array
 * when nothing changes.
 */
export function withinCapabilities<M extends { role: string; content: MessageContent }>(
  messages: readonly M[],
  capabilities: ContentCapabilities | undefined,
): readonly M[] {
  let changed: M[] | undefined;
  for (const [index, message] of messages.entries()) {
    const content = message.content;
    if (
      message.role !== 'tool' ||
      typeof content === 'string' ||
      content.every((p) => takes(p, capabilities))
    )
      continue;
    changed ??= [...messages];
    changed[index] = {
      ...message,
      content: content.map((part) =>
        takes(part, capabilities)
          ? part
          : { type: 'text', text: `${describePart(part)} (this model cannot see it)` },
      ),
    };
  }
  return changed ?? messages;
}

/** Whether a value read back (a tool's result, a worker's message) is a well-formed part. */
export function isContentPart(value: unknown): value is ContentPart {
  if (value === null || typeof value !== 'object') return false;
  const part = value as Record<string, unknown>;
  const text = (key: string) => typeof part[key] === 'string';
  if (part.type === 'text') return text('text');
  if (part.type === 'image') return text('url') || (text('data') && text('mediaType'));
  if (part.type === 'file') return text('data') && text('mediaType') && text('name');
  return false;
}
