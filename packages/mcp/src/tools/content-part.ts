import type { ContentBlock, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { JSONValue } from '@raf/core';

/** One content block as the model reads it (`{ type: 'image', mimeType, data }`, …). */
export function part(block: ContentBlock): JSONValue {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      return { type: block.type, mimeType: block.mimeType, data: block.data };
    case 'resource': {
      const { resource } = block;
      return 'text' in resource
        ? {
            type: 'resource',
            uri: resource.uri,
            ...(resource.mimeType && { mimeType: resource.mimeType }),
            text: resource.text,
          }
        : {
            type: 'resource',
            uri: resource.uri,
            ...(resource.mimeType && { mimeType: resource.mimeType }),
            blob: resource.blob,
          };
    }
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: block.uri,
        name: block.name,
        ...(block.mimeType && { mimeType: block.mimeType }),
        ...(block.description && { description: block.description }),
      };
    default:
      return JSON.parse(JSON.stringify(block)) as JSONValue;
  }
}

/** One entry of a `resources/read` answer as the model reads it. */
export function resourcePart(content: ReadResourceResult['contents'][number]): JSONValue {
  const mimeType = content.mimeType ? { mimeType: content.mimeType } : {};
  if ('text' in content && typeof content.text === 'string')
    return { uri: content.uri, ...mimeType, text: content.text };
  const blob = (content as { blob: string }).blob;
  if (content.mimeType?.startsWith('image/'))
    return { type: 'image', uri: content.uri, mimeType: content.mimeType, data: blob };
  return { type: 'resource', uri: content.uri, ...mimeType, blob };
}
