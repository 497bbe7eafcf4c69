import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import { type DocumentFormat, formatOf } from '../load/document.js';
import type { SourceRef } from './expand-sources.js';

/** Files and downloads larger than this are skipped: a knowledge base is not a file store. */
export const MAX_SOURCE_BYTES = 50 * 1024 * 1024;

export interface SourceStamp {
  size: number;
  mtimeMs: number;
}

export interface SourceContent extends SourceStamp {
  bytes: Uint8Array;
  hash: string;
  format: DocumentFormat;
}

export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Size and mtime of a file (cheap: decides whether its content must be read and hashed). */
export async function stampOf(ref: SourceRef): Promise<SourceStamp | undefined> {
  if (ref.kind === 'url') return undefined;
  const info = await stat(ref.path);
  return { size: info.size, mtimeMs: info.mtimeMs };
}

let dispatcher: Dispatcher | undefined;

/** An undici agent that follows up to 5 redirects (made on the first download). */
async function redirecting(): Promise<Dispatcher> {
  const { Agent, interceptors } = await import('undici');
  dispatcher ??= new Agent().compose(interceptors.redirect({ maxRedirections: 5 }));
  return dispatcher;
}

/** Reads a file or downloads a URL (undici, size- and time-capped), with its hash and format. */
export async function readSource(ref: SourceRef, signal: AbortSignal): Promise<SourceContent> {
  if (ref.kind === 'file') {
    const info = await stat(ref.path);
    if (info.size > MAX_SOURCE_BYTES)
      throw new Error(`${info.size} bytes, over the ${MAX_SOURCE_BYTES}-byte limit`);
    const bytes = await readFile(ref.path, { signal });
    return {
      bytes,
      hash: contentHash(bytes),
      size: info.size,
      mtimeMs: info.mtimeMs,
      format: formatOf(ref.path) ?? 'text',
    };
  }
  const { request } = await import('undici');
  const response = await request(ref.url, {
    signal: AbortSignal.any([signal, AbortSignal.timeout(60_000)]),
    dispatcher: await redirecting(),
  });
  if (response.statusCode >= 300) {
    await response.body.dump();
    throw new Error(`HTTP ${response.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_SOURCE_BYTES) {
      response.body.destroy();
      throw new Error(`over the ${MAX_SOURCE_BYTES}-byte limit`);
    }
    chunks.push(chunk as Buffer);
  }
  const bytes = Buffer.concat(chunks);
  const contentType = response.headers['content-type'];
  const format = formatOf(ref.url, Array.isArray(contentType) ? contentType[0] : contentType) ?? 'text';
  return { bytes, hash: contentHash(bytes), size, mtimeMs: 0, format };
}
