import { type ContentPart, contentText, hasMediaParts, type MessageContent } from '@raf/core';

type Part = Record<string, unknown>;

function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/** One part in Chat Completions form: `text`, `image_url` (a URL or a data URL), `file`. */
export function chatPart(part: ContentPart): Part {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image') {
    return {
      type: 'image_url',
      image_url: { url: 'url' in part ? part.url : dataUrl(part.mediaType, part.data) },
    };
  }
  return { type: 'file', file: { filename: part.name, file_data: dataUrl(part.mediaType, part.data) } };
}

/** A user message's content for Chat Completions: the string as it is, parts as an array. */
export function chatContent(content: MessageContent): string | Part[] {
  return typeof content === 'string' ? content : content.map(chatPart);
}

/** The media parts of a content (what a text-only message, such as a tool result, cannot carry). */
export function mediaParts(content: MessageContent): ContentPart[] {
  return typeof content === 'string' ? [] : content.filter((part) => part.type !== 'text');
}

/** One part in Responses form: `input_text`, `input_image`, `input_file`. */
function responsesPart(part: ContentPart): Part {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  if (part.type === 'image') {
    return { type: 'input_image', image_url: 'url' in part ? part.url : dataUrl(part.mediaType, part.data) };
  }
  return { type: 'input_file', filename: part.name, file_data: dataUrl(part.mediaType, part.data) };
}

/**
 * Content for a Responses input item or a `function_call_output`: plain text stays a string (what
 * every model takes); parts with media become an input array.
 */
export function responsesContent(content: MessageContent): string | Part[] {
  if (!hasMediaParts(content)) return contentText(content);
  return (content as readonly ContentPart[]).map(responsesPart);
}
