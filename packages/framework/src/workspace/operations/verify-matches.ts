import { existsSync } from 'node:fs';
import { constants, open, readlink, realpath } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { clipLine, SEARCH_LIMITS } from './search-limits.js';
import type { SearchMatch } from './tool-operations.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;
const FD_PATHS = process.platform === 'linux' && existsSync('/proc/self/fd');

/**
 * Keeps the matches whose file is, now, a regular file at exactly its path (opened without
 * following a final link, its real path read back by descriptor) and whose line still reads the
 * same. A file ripgrep reached through a folder swapped for a link is outside the tree, so its
 * matches are dropped even if the folder has been swapped back since.
 */
export async function verifyMatches(
  matches: SearchMatch[],
  maxFileBytes: number,
  signal: AbortSignal,
): Promise<SearchMatch[]> {
  const byFile = new Map<string, SearchMatch[]>();
  for (const match of matches) {
    const group = byFile.get(match.file);
    if (group) group.push(match);
    else byFile.set(match.file, [match]);
  }
  const kept: SearchMatch[] = [];
  for (const [file, group] of byFile) {
    signal.throwIfAborted();
    const lines = await readLinesAt(
      file,
      maxFileBytes,
      group.reduce((most, m) => Math.max(most, m.line), 0),
    );
    if (!lines) continue;
    for (const match of group) {
      if (lines[match.line - 1] === match.content) kept.push(match);
    }
  }
  return kept;
}

/** The file's first `upTo` lines, clipped as search results are, or undefined if it is not `file`. */
async function readLinesAt(file: string, maxBytes: number, upTo: number): Promise<string[] | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const real = FD_PATHS ? await readlink(`/proc/self/fd/${handle.fd}`) : await realpath(file);
    const info = await handle.stat();
    if (real !== file || !info.isFile() || info.size > maxBytes) return undefined;
    // Read only as far as the last line needed, a chunk at a time.
    const lines: string[] = [];
    const chunk = Buffer.allocUnsafe(1 << 16);
    const decoder = new StringDecoder('utf8');
    let partial = '';
    while (lines.length < upTo) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      const text = partial + (bytesRead === 0 ? decoder.end() : decoder.write(chunk.subarray(0, bytesRead)));
      const parts = text.split('\n');
      // Only the first 300 characters of a line are compared: a huge line need not be kept whole.
      partial = bytesRead === 0 ? '' : (parts.pop() as string).slice(0, 2 * SEARCH_LIMITS.lineChars);
      for (const part of parts) if (lines.length < upTo) lines.push(clipLine(part));
      if (bytesRead === 0) break;
    }
    return lines;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
