import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { GlobOptions } from 'tinyglobby';
import { formatOf, SUPPORTED_EXTENSIONS } from '../load/document.js';

/** One file or URL to index, with the name it is stored and cited under. */
export type SourceRef = { kind: 'file'; id: string; path: string } | { kind: 'url'; id: string; url: string };

const GLOB = /[*?[\]{}!]/;
const URL_SOURCE = /^https?:\/\//i;
/** Folders a folder source never descends into (a glob that names them still reaches them). */
const SKIPPED = ['**/node_modules/**', '**/.git/**', '**/.raf/**'];

/** The name a file is cited under: relative to the agent's folder when inside it. */
function idOf(path: string, baseDir: string): string {
  const rel = relative(baseDir, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : path;
}

/**
 * The files and URLs of `config.source`: a URL as is; a glob (relative to `baseDir`) or a folder
 * (every md, txt, html and pdf file under it, outside node_modules and dot-folders) expanded; a
 * file as is. Unsupported files matched by a glob are left out; what matches nothing is reported.
 * `checkOnly` (validation): only report what does not exist, without listing folders.
 */
export async function expandSources(
  sources: readonly string[],
  baseDir: string,
  options: { checkOnly?: boolean } = {},
): Promise<{ refs: SourceRef[]; problems: string[] }> {
  // Loaded only when a glob or a folder listing is needed.
  const glob = async (patterns: string | string[], options: GlobOptions) =>
    (await import('tinyglobby')).glob(patterns, options);
  const refs = new Map<string, SourceRef>();
  const problems: string[] = [];
  const addFile = (path: string) => {
    if (!formatOf(path)) return;
    const id = idOf(path, baseDir);
    refs.set(id, { kind: 'file', id, path });
  };
  const extensions = `{${SUPPORTED_EXTENSIONS.join(',')}}`;
  for (const source of sources) {
    if (URL_SOURCE.test(source)) {
      refs.set(source, { kind: 'url', id: source, url: source });
      continue;
    }
    const path = resolve(baseDir, source);
    if (GLOB.test(source)) {
      const found = await glob(source, { cwd: baseDir, absolute: true, onlyFiles: true, dot: false });
      if (options.checkOnly && found.length > 0) continue;
      if (found.length === 0) problems.push(`source '${source}' matches no file`);
      for (const file of found.sort()) addFile(file);
      continue;
    }
    const info = await stat(path).catch(() => undefined);
    if (!info) {
      problems.push(`source '${source}' does not exist (${path})`);
    } else if (info.isDirectory()) {
      if (options.checkOnly) continue; // it exists: what is in it is the indexer's business
      const found = await glob(`**/*.${extensions}`, {
        cwd: path,
        absolute: true,
        onlyFiles: true,
        ignore: SKIPPED,
        caseSensitiveMatch: false,
      });
      for (const file of found.sort()) addFile(file);
    } else if (!formatOf(path)) {
      problems.push(`source '${source}': only md, txt, html and pdf files are indexed`);
    } else addFile(path);
  }
  return { refs: [...refs.values()], problems };
}
