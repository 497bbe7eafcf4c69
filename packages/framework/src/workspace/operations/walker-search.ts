import type { Dirent } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { byFileAndLine, clipLine, SEARCH_LIMITS } from './search-limits.js';
import type { SearchMatch, SearchOutcome, SearchRequest } from './tool-operations.js';

const CONCURRENCY = 32;

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
  const match = picomatch(include, { dot: true });
  return include.includes('/') ? (relative) => match(relative) : (_relative, name) => match(name);
}

async function readSmallFile(path: string): Promise<Buffer | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > SEARCH_LIMITS.maxFileBytes) return undefined;
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

function matchLines(file: string, text: string, regex: RegExp, into: SearchMatch[]): void {
  // Most files do not match at all: one test over the whole text spares splitting them.
  if (!regex.test(text)) return;
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (regex.test(line)) into.push({ file, line: index + 1, content: clipLine(line) });
  }
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

  async function searchFile(path: string): Promise<void> {
    const buffer = await readSmallFile(path);
    if (!buffer || buffer.subarray(0, SEARCH_LIMITS.binaryProbeBytes).includes(0)) return;
    matchLines(path, buffer.toString('utf8'), regex, matches);
  }

  async function drainFiles(): Promise<void> {
    const workers = Array.from({ length: Math.min(CONCURRENCY, files.length) }, async () => {
      for (let next = files.shift(); next && !enough(); next = files.shift()) {
        request.signal.throwIfAborted();
        await searchFile(next.path);
      }
    });
    await Promise.all(workers);
  }

  const stack: { path: string; relative: string; depth: number }[] = [];
  // A file named directly is searched whatever `include` says, as ripgrep does.
  if ((await stat(request.directory)).isFile()) files.push({ path: request.directory, relative: '' });
  else stack.push({ path: request.directory, relative: '', depth: 0 });
  if (files.length > 0) await drainFiles();
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
    if (files.length >= 256 || stack.length === 0) await drainFiles();
  }
  matches.sort(byFileAndLine);
  const truncated = matches.length > request.maxMatches;
  return { matches: matches.slice(0, request.maxMatches), truncated, engine: 'walker' };
}
