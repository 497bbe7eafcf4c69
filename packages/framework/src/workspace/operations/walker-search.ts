import { posix } from 'node:path';
import { isInstalled, lazyRequire } from '../../lazy-require.js';
import { orderedWalk } from './ordered-walk.js';
import { SEARCH_LIMITS, SearchTimeoutError } from './search-limits.js';
import type { FindRequest, SearchMatch, SearchOutcome, SearchRequest } from './tool-operations.js';
import { type WalkerPool, walkerPool } from './walker-pool.js';

const picomatchLib = lazyRequire<typeof import('picomatch')>('picomatch');

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

/** Look-arounds and backreferences have no linear-time engine: such a pattern can only time out. */
function linearPossible(pattern: string): boolean {
  return !/\(\?<?[=!]|\\[1-9]|\\k</.test(pattern);
}

/**
 * The linear engine (re2js) is an optional peer: without it a stuck regex run keeps V8's engine,
 * in its worker, until the search's time bound ends it (bounded either way). Resolved once.
 */
let linearEngine: boolean | undefined;
function linearEngineInstalled(): boolean {
  linearEngine ??= isInstalled('re2js');
  return linearEngine;
}

export interface WalkerLimits {
  maxFileBytes: number;
  pool?: WalkerPool;
}

/**
 * The search without ripgrep: walks the tree in path order without following links, skips
 * folders whose name starts with `.`, binary files (a NUL in the first 8 KiB) and files over the
 * size cap, and matches the regex line by line (V8's engine, re-run on a linear-time engine for a
 * unit whose regex run is stuck, when re2js is installed).
 */
export async function walkerSearch(request: SearchRequest, limits: WalkerLimits): Promise<SearchOutcome> {
  const regex = compileSearchPattern(request.pattern, request.caseInsensitive);
  const linear = linearPossible(request.pattern);
  const walk = await orderedWalk(
    limits.pool ?? walkerPool(),
    {
      kind: 'search',
      root: request.directory,
      maxDepth: SEARCH_LIMITS.maxDepth,
      maxFileBytes: limits.maxFileBytes,
      probeBytes: SEARCH_LIMITS.binaryProbeBytes,
      lineChars: SEARCH_LIMITS.lineChars,
      source: regex.source,
      flags: regex.flags,
      ...(request.include !== undefined && { include: request.include }),
    },
    { path: request.directory, relative: '', depth: 0 },
    request.maxMatches,
    request.signal,
    linear && linearEngineInstalled(),
  ).catch((error: unknown) => {
    // A pattern re2js could have answered: say what would have.
    if (error instanceof SearchTimeoutError && linear && !linearEngineInstalled())
      throw new SearchTimeoutError(error.timeoutMs, 'or install re2js to run such patterns in linear time');
    throw error;
  });
  const matches: SearchMatch[] = [];
  for (const item of walk.results) {
    if (item.type === 'match') matches.push({ file: item.file, line: item.line, content: item.content });
  }
  return { matches, truncated: walk.truncated, engine: 'walker', skipped: walk.skipped };
}

/** Refuses a glob that could leave the folder. */
export function checkFindPattern(pattern: string): void {
  if (posix.isAbsolute(pattern) || /^[a-zA-Z]:[\\/]/.test(pattern) || pattern.split(/[\\/]/).includes('..')) {
    throw Object.assign(
      new Error("the pattern must be relative to the directory and must not contain '..'"),
      {
        code: 'EPATTERN',
      },
    );
  }
}

/**
 * `find_files` on the same walker: the glob's fixed prefix is where the walk starts, a glob
 * without `**` bounds the depth, and dot folders are entered only when the glob names one
 * (`*` and `**` never match a leading dot).
 */
export async function walkerFind(
  request: FindRequest,
  limits: WalkerLimits,
): Promise<{ results: string[]; truncated: boolean }> {
  checkFindPattern(request.pattern);
  const glob = request.pattern.replace(/^(\.\/)+/, '');
  const scan = picomatchLib().scan(glob);
  const base = scan.isGlob ? scan.base : posix.dirname(glob);
  const prefix = base === '.' ? '' : base.replace(/\/+$/, '');
  const unbounded = glob.includes('**') || /\{[^}]*\//.test(glob);
  const depth = prefix === '' ? 0 : prefix.split('/').length;
  const walk = await orderedWalk(
    limits.pool ?? walkerPool(),
    {
      kind: 'find',
      root: request.directory,
      maxDepth: unbounded ? SEARCH_LIMITS.maxDepth : Math.min(SEARCH_LIMITS.maxDepth, glob.split('/').length),
      maxFileBytes: limits.maxFileBytes,
      probeBytes: SEARCH_LIMITS.binaryProbeBytes,
      lineChars: SEARCH_LIMITS.lineChars,
      glob,
      enterDotFolders: /(^|[/{,])\./.test(glob),
    },
    { path: prefix === '' ? request.directory : `${request.directory}/${prefix}`, relative: prefix, depth },
    request.maxResults,
    request.signal,
    false,
  );
  return { results: walk.results.map((item) => item.file), truncated: walk.truncated };
}
