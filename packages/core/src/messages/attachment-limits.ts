import { mediaTypeOfName, NAMED_MEDIA_TYPES } from './content-part.js';

// The limits a user's attachment is checked with wherever it enters: `raf run --attach`, the local
// studio's file drop and `raf serve`'s `/v1` start-run body all share these, so a file one takes
// the others take too.

/** One attachment's cap: past it every provider refuses the request anyway (Anthropic: 32 MB a PDF). */
export const ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024;

/**
 * The largest request body carrying attachments (the studio's run, `/v1` start-run): two files at
 * the cap as base64 and a mebibyte for the rest; larger bodies are refused unread.
 */
export const ATTACHMENT_BODY_MAX_BYTES = 2 * Math.ceil((ATTACHMENT_MAX_BYTES * 4) / 3) + 1024 * 1024;

/** The media types an attachment may have: what some model reads (images, PDF, text). */
export const ATTACHMENT_MEDIA_TYPES: readonly string[] = NAMED_MEDIA_TYPES;

const KINDS = 'attach an image (png, jpg, gif, webp), a PDF or a text file (txt, md, csv, json, html)';

/** Why an attachment of this media type and size cannot go, or undefined when it can. */
export function attachmentProblem(mediaType: string, size: number): string | undefined {
  if (!ATTACHMENT_MEDIA_TYPES.includes(mediaType))
    return `${mediaType} is not a type a model reads; ${KINDS}`;
  if (size > ATTACHMENT_MAX_BYTES) return `${size} bytes, over the ${ATTACHMENT_MAX_BYTES}-byte cap`;
  return undefined;
}

/**
 * The media type of an attachment by its name, or why it cannot be one: the one check `--attach`
 * and the studio's file drop share (a type no model reads, or a file over the cap).
 */
export function attachmentMediaType(name: string, size: number): { mediaType: string } | { problem: string } {
  const mediaType = mediaTypeOfName(name);
  if (!mediaType) return { problem: `cannot tell what kind of file it is; ${KINDS}` };
  const problem = attachmentProblem(mediaType, size);
  return problem ? { problem } : { mediaType };
}
