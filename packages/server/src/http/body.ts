import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { ClientGoneError, HttpError, isClientAbort } from './http-error.js';

/** The most a request body may hold by default (the API takes small JSON objects). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** How deep a body's arrays and objects may nest (the API's bodies are shallow; deeper is an attack). */
export const MAX_JSON_DEPTH = 64;

/**
 * Refuses text whose brackets nest deeper than `max`, before it is parsed: a deeply nested value
 * parses, but code that walks it recursively (a schema check, a protocol SDK) throws RangeError.
 */
export function checkJsonDepth(text: string, max = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) throw new HttpError(400, 'too_deep', `the body nests deeper than ${max} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/** The request body as JSON, within `maxBytes` (413 beyond it, before reading the rest). */
export async function readJsonBody(
  req: IncomingMessage,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<unknown> {
  // The media type before its parameters: `application/json; charset=utf-8`, not `application/jsonp`.
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    throw new HttpError(415, 'unsupported_media_type', 'the body must be application/json');
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > maxBytes)
    throw new HttpError(413, 'body_too_large', `the body is larger than ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > maxBytes)
        throw new HttpError(413, 'body_too_large', `the body is larger than ${maxBytes} bytes`);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    // A client that closed mid-body is no failure of the server (and there is no one to answer).
    if (!HttpError.isHttpError(error) && isClientAbort(error)) throw new ClientGoneError({ cause: error });
    throw error;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  checkJsonDepth(text);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
}

/** The body parsed with `schema`: a 400 that names the field on any mismatch. */
export async function readBody<S extends z.ZodType>(
  req: IncomingMessage,
  schema: S,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<z.infer<S>> {
  const parsed = schema.safeParse(await readJsonBody(req, maxBytes));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.length ? issue.path.map(String).join('.') : 'body';
  throw new HttpError(400, 'invalid_field', `${at}: ${issue?.message ?? 'invalid'}`);
}
