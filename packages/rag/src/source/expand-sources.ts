import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ConfinedFolder, symbolicLinkOnTheWay } from '@raf/framework';
import type { GlobOptions } from 'tinyglobby';
import { formatOf } from '../load/document.js';

/** One file or URL to index, with the name it is stored and cited under. */
export type SourceRef =
  /** `root` is the folder the config names (a folder source, a glob's fixed part, a file's folder); `rel` is below it. */
  | { kind: 'file'; id: string; path: string; root: string; rel: string }
  | { kind: 'url'; id: string; url: string };

const GLOB = /[*?[\]{}!]/;
const URL_SOURCE = /^https?:\/\//i;
/** Folders a folder source never descends into (a glob that names them still reaches them). */
const SKIPPED_NAMES = new Set(['node_modules']);
const MAX_FOLDER_FILES = 100_000;

/** The leading segments of a glob without glob characters: the folder it names. */
function globBase(pattern: string): string {
  const parts = pattern.split('/');
  const fixed: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (GLOB.test(part)) break;
    fixed.push(part);
  }
  return fixed.join('/') || '.';
}

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
  options: { checkOnly?: boolean; signal?: AbortSignal } = {},
): Promise<{ refs: SourceRef[]; problems: string[] }> {
  // Loaded only when a glob or a folder listing is needed.
  const glob = async (patterns: string | string[], options: GlobOptions) =>
    (await import('tinyglobby')).glob(patterns, options);
  const refs = new Map<string, SourceRef>();
  const problems: string[] = [];
  const addFile = (root: string, path: string) => {
    if (!formatOf(path)) return;
    const id = idOf(path, baseDir);
    const rel = relative(root, path).split(sep).join('/');
    refs.set(id, { kind: 'file', id, path, root, rel });
  };
  for (const source of sources) {
    if (URL_SOURCE.test(source)) {
      refs.set(source, { kind: 'url', id: source, url: source });
      continue;
    }
    const path = resolve(baseDir, source);
    // A folder named here is opened through links (only what is below it is walked link by link):
    // a `docs/handbook` replaced by a link to a private folder would be indexed, so a link on the
    // way to what the source names is refused like a linked file below it.
    const link = await symbolicLinkOnTheWay(baseDir, GLOB.test(source) ? globBase(source) : source);
    if (link !== undefined) {
      problems.push(`source '${source}': ${link} is a symbolic link (not followed); not indexed`);
      continue;
    }
    if (GLOB.test(source)) {
      // Linked folders are not descended into; a linked file that matches is refused when read.
      const found = await glob(source, {
        cwd: baseDir,
        absolute: true,
        onlyFiles: true,
        dot: false,
        followSymbolicLinks: false,
      });
      if (options.checkOnly && found.length > 0) continue;
      if (found.length === 0) problems.push(`source '${source}' matches no file`);
      const root = resolve(baseDir, globBase(source));
      for (const file of found.sort()) addFile(root, file);
      continue;
    }
    const info = await stat(path).catch(() => undefined);
    if (!info) {
      problems.push(`source '${source}' does not exist (${path})`);
    } else if (info.isDirectory()) {
      if (options.checkOnly) continue; // it exists: what is in it is the indexer's business
      // Walked folder by held folder: links (to files or folders) are never followed, only
      // regular files are listed; what was left out is reported.
      const walk = await new ConfinedFolder(path).walk({
        signal: options.signal ?? new AbortController().signal,
        maxFiles: MAX_FOLDER_FILES,
        skip: (name) => name.startsWith('.') || SKIPPED_NAMES.has(name),
      });
      for (const refused of walk.refused)
        if (formatOf(refused.path) || refused.reason.includes('link'))
          problems.push(`source '${source}': ${refused.path} is ${refused.reason}; not indexed`);
      if (walk.truncated)
        problems.push(`source '${source}': more than ${MAX_FOLDER_FILES} files; the rest are not indexed`);
      for (const file of walk.files) addFile(path, resolve(path, file.path));
    } else if (!formatOf(path)) {
      problems.push(`source '${source}': only md, txt, html and pdf files are indexed`);
    } else addFile(dirname(path), path);
  }
  return { refs: [...refs.values()], problems };
}
