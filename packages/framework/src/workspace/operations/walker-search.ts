import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { lazyRequire } from '../../lazy-require.js';
import { byFileAndLine, SEARCH_LIMITS } from './search-limits.js';
import type { SearchMatch, SearchOutcome, SearchRequest } from './tool-operations.js';
import { searchBatch } from './walker-pool.js';

const picomatchLib = lazyRequire<typeof import('picomatch')>('picomatch');

const BATCH = 256;

/** Compiles the model's pattern; an invalid one is an error the model reads. */
export function compileSearchPattern(pattern: string, caseInsensitive: boolean): RegExp {
  try {
    return new RegExp(pattern, caseInsensitive ? 'mi' : 'm');
  } catch (error) {
    throw Object.assign(new Error(`invalid regular expression: ${(error as Error).message}`), {
      code: 'EPATTERN',
    });
  }
}

/** A glob like `*.ts` matches the file name at any depth; one with a `/` matches the relative path. */
export function includeMatcher(
  include: string | undefined,
): ((relative: string, name: string) => boolean) | undefined {
  if (!include) return undefined;
  const match = picomatchLib()(include, { dot: true });
  return include.includes('/') ? (relative) => match(relative) : (_relative, name) => match(name);
}

/**
 * The search without ripgrep: walks the tree without following links, skips folders whose name
 * starts with `.` and binary files (a NUL in the first 8 KiB), and runs the regex line by line.
 */
export async function walkerSearch(request: SearchRequest): Promise<SearchOutcome> {
  const regex = compileSearchPattern(request.pattern, request.caseInsensitive);
  const include = includeMatcher(request.include);
  const matches: SearchMatch[] = [];
  const files: { path: string; relative: string }[] = [];
  const enough = () => matches.length > request.maxMatches;

  const pending: Promise<void>[] = [];
  const dispatch = () => {
    const batch = files.splice(0, files.length).map((f) => f.path);
    pending.push(
      searchBatch(batch, regex, request.maxMatches).then((found) => {
        matches.push(...found);
      }),
    );
  };

  const stack: { path: string; relative: string; depth: number }[] = [];
  // A file named directly is searched whatever `include` says, as ripgrep does.
  if ((await stat(request.directory)).isFile()) files.push({ path: request.directory, relative: '' });
  else stack.push({ path: request.directory, relative: '', depth: 0 });
  if (files.length > 0) dispatch();
  while (stack.length > 0 && !enough()) {
    request.signal.throwIfAborted();
    const dir = stack.pop() as (typeof stack)[number];
    const entries: Dirent[] = await readdir(dir.path, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const relative = dir.relative === '' ? entry.name : `${dir.relative}/${entry.name}`;
      const path = join(dir.path, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && dir.depth + 1 < SEARCH_LIMITS.maxDepth)
          stack.push({ path, relative, depth: dir.depth + 1 });
      } else if (entry.isFile() && (!include || include(relative, entry.name))) {
        files.push({ path, relative });
      }
    }
    if (files.length >= BATCH || (stack.length === 0 && files.length > 0)) dispatch();
    // Keep the walk a little ahead of the workers, not the whole tree ahead.
    if (pending.length >= 8) await Promise.all(pending.splice(0, 4));
  }
  await Promise.all(pending);
  request.signal.throwIfAborted();
  matches.sort(byFileAndLine);
  const truncated = matches.length > request.maxMatches;
  return { matches: matches.slice(0, request.maxMatches), truncated, engine: 'walker' };
}
