import type { ContentPart, MessageContent } from '@raf/core';

type Block = Record<string, unknown>;

/**
 * A message's content as Messages API blocks: images as `image` blocks (by URL or base64), files
 * as `document` blocks (a PDF by base64, a text file as a text source), text as `text`.
 */
export function anthropicContent(content: MessageContent): string | Block[] {
  if (typeof content === 'string') return content;
  return content.map(anthropicBlock);
}

function anthropicBlock(part: ContentPart): Block {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image') {
    return 'url' in part
      ? { type: 'image', source: { type: 'url', url: part.url } }
      : { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } };
  }
  if (part.mediaType.startsWith('text/')) {
    const text = new TextDecoder().decode(Uint8Array.from(atob(part.data), (c) => c.charCodeAt(0)));
    return {
      type: 'document',
      title: part.name,
      source: { type: 'text', media_type: 'text/plain', data: text },
    };
  }
  return {
    type: 'document',
    title: part.name,
    source: { type: 'base64', media_type: part.mediaType, data: part.data },
  };
}
