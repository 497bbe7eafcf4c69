import { createHash } from 'node:crypto';
import { ConfinedFolder } from '@raf/framework';
import { type DocumentFormat, formatOf } from '../load/document.js';
import type { SourceDownloader } from './download-source.js';
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

/** Reads a file or downloads a URL (through the SSRF guard, size- and time-capped), with its hash and format. */
export async function readSource(
  ref: SourceRef,
  signal: AbortSignal,
  downloader: SourceDownloader,
): Promise<SourceContent> {
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
  const { bytes, contentType } = await downloader.download(ref.url, signal);
  const size = bytes.length;
  const format = formatOf(ref.url, contentType) ?? 'text';
  return { bytes, hash: contentHash(bytes), size, mtimeMs: 0, format };
}
