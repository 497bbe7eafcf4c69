import {
  ATTACHMENT_BODY_MAX_BYTES,
  base64ByteLength,
  type ChatMessage,
  type ContentPart,
  partForFile,
  textPart,
  userMessage,
} from '@raf/core';
import * as z from 'zod';
import { ATTACHMENT_MAX_BYTES, attachmentMediaType } from '../attachments.js';
import { StudioHttpError } from './http-json.js';

/** Files one message may carry from the Conversation page. */
const MAX_ATTACHMENTS = 4;
/** Two files at the cap, as base64, and the rest of the body: larger bodies are refused unread. */
export const RUN_BODY_MAX_BYTES = ATTACHMENT_BODY_MAX_BYTES;

const attachmentsSchema = z
  .array(
    z.strictObject({
      name: z.string().min(1).max(255),
      data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected the bytes as base64'),
    }),
  )
  .max(MAX_ATTACHMENTS, `at most ${MAX_ATTACHMENTS} files a message`);

/**
 * The page's `attachments` (`[{ name, data }]`, bytes as base64) as a user message's parts, with
 * the checks of `raf run --attach` (the type by name, the same per-file cap), so the page's own
 * checks are a convenience, not the guard.
 */
export function attachedMessage(text: string, attachments: unknown): ChatMessage {
  const parsed = attachmentsSchema.safeParse(attachments);
  if (!parsed.success)
    throw new StudioHttpError(
      400,
      'invalid_field',
      parsed.error.issues
        .map((i) => `attachments${i.path.map((p) => `[${String(p)}]`).join('')}: ${i.message}`)
        .join('; '),
    );
  const parts: ContentPart[] = text ? [textPart(text)] : [];
  for (const [i, file] of parsed.data.entries()) {
    const size = base64ByteLength(file.data);
    const checked = attachmentMediaType(file.name, size);
    if ('problem' in checked)
      throw new StudioHttpError(
        size > ATTACHMENT_MAX_BYTES ? 413 : 400,
        size > ATTACHMENT_MAX_BYTES ? 'attachment_too_large' : 'unsupported_attachment',
        `attachments[${i}] (${file.name}): ${checked.problem}`,
      );
    parts.push(partForFile(Buffer.from(file.data, 'base64'), checked.mediaType, file.name));
  }
  return userMessage(parts);
}
