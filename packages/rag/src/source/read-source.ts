import { createHash } from 'node:crypto';
import { ConfinedFolder } from '@raf/framework';
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
  const info = await folderOf(ref.root).entry(ref.rel);
  if (!info) throw Object.assign(new Error(`${ref.id} does not exist`), { code: 'ENOENT' });
  if (info.kind !== 'file')
    throw new Error(
      `${ref.id} is ${info.kind === 'symlink' ? 'a symbolic link (not followed)' : 'not a regular file'}`,
    );
  return { size: info.size, mtimeMs: info.mtimeMs };
}

const folders = new Map<string, ConfinedFolder>();

/** The folder a file source's config names: reads below it follow no link and open no FIFO. */
function folderOf(root: string): ConfinedFolder {
  let folder = folders.get(root);
  if (!folder) {
    folder = new ConfinedFolder(root);
    folders.set(root, folder);
  }
  return folder;
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
    const info = await stampOf(ref);
    if (!info) throw new Error(`${ref.id}: cannot read`);
    if (info.size > MAX_SOURCE_BYTES)
      throw new Error(`${info.size} bytes, over the ${MAX_SOURCE_BYTES}-byte limit`);
    const bytes = await folderOf(ref.root).readFile(ref.rel, { maxBytes: MAX_SOURCE_BYTES, signal });
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
