import { existsSync } from 'node:fs';
import { constants, open, readlink, realpath } from 'node:fs/promises';
import { clipLine } from './search-limits.js';
import type { SearchMatch } from './tool-operations.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;
const FD_PATHS = process.platform === 'linux' && existsSync('/proc/self/fd');

/**
 * Keeps the matches whose file is, now, a regular file at exactly its path (opened without
 * following a final link, its real path read back by descriptor) and whose line still reads the
 * same. A file ripgrep reached through a folder swapped for a link is outside the tree, so its
 * matches are dropped even if the folder has been swapped back since.
 */
export async function verifyMatches(matches: SearchMatch[], maxFileBytes: number): Promise<SearchMatch[]> {
  const byFile = new Map<string, SearchMatch[]>();
  for (const match of matches) {
    const group = byFile.get(match.file);
    if (group) group.push(match);
    else byFile.set(match.file, [match]);
  }
  const kept: SearchMatch[] = [];
  for (const [file, group] of byFile) {
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
    const text = (await handle.readFile()).toString('utf8');
    const lines: string[] = [];
    let start = 0;
    while (lines.length < upTo && start <= text.length) {
      const newline = text.indexOf('\n', start);
      const end = newline < 0 ? text.length : newline;
      lines.push(clipLine(text.slice(start, end)));
      if (newline < 0) break;
      start = newline + 1;
    }
    return lines;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
