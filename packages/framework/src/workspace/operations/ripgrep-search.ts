import { stat } from 'node:fs/promises';
import { basename, dirname, resolve as resolvePath } from 'node:path';
import { childProcess } from '../../lazy-builtins.js';
import { byFileAndLine, comparePaths } from './path-order.js';
import { clipLine, SEARCH_LIMITS } from './search-limits.js';
import type { SearchMatch, SearchOutcome, SearchRequest, SkippedFile } from './tool-operations.js';
import { verifyMatches } from './verify-matches.js';

/** ripgrep reported a problem with the pattern itself (its regex dialect differs from JS). */
export class RipgrepPatternError extends Error {}

/** ripgrep could not be started (not installed, not executable): the walker answers instead. */
export class RipgrepMissingError extends Error {}

const probes = new Map<string, Promise<boolean>>();

/** Whether `rg` runs on this machine (checked once per path). */
export function hasRipgrep(path = 'rg'): Promise<boolean> {
  let probe = probes.get(path);
  if (!probe) {
    probe = new Promise((resolve) => {
      const child = childProcess().spawn(path, ['--version'], { stdio: 'ignore' });
      child.once('error', () => resolve(false));
      child.once('close', (code) => resolve(code === 0));
    });
    probes.set(path, probe);
  }
  return probe;
}

/**
 * How many matches a parallel ripgrep run may collect before the search starts over in path order.
 * Below it, every match is read and sorted here, so the result is the same first N as
 * `--sort=path` gives, at ripgrep's parallel speed (`--sort=path` walks on one thread: 1.6× the
 * time of `rg -n` on a 100,000-file tree on 2 cores). Above it, the ordered run stops early.
 */
export function parallelMatchCap(maxMatches: number): number {
  return Math.max(1_000, (maxMatches + 1) * 5);
}

/**
 * The flags that make ripgrep walk exactly like the JS walker (see `SEARCH_LIMITS`). `ordered`:
 * one thread in path order, so that a run stopped after N matches has the first N.
 */
export function ripgrepArguments(
  request: SearchRequest,
  target = '.',
  maxFileBytes = SEARCH_LIMITS.maxFileBytes,
  ordered = true,
): string[] {
  const args = [
    '--no-config',
    '--null',
    '--line-number',
    '--no-heading',
    '--with-filename',
    '--color=never',
    '--no-ignore',
    '--hidden',
    '--glob=!.*/',
    ...(ordered ? ['--sort=path'] : []),
    `--max-depth=${SEARCH_LIMITS.maxDepth}`,
    `--max-filesize=${maxFileBytes}`,
    '--max-columns=2000',
    '--max-columns-preview',
    // The only way ripgrep names the files it skipped for their size ("ignoring PATH: N bytes").
    '--debug',
  ];
  if (request.caseInsensitive) args.push('--ignore-case');
  if (request.include) args.push(`--glob=${request.include}`);
  args.push('--regexp', request.pattern, '--', target);
  return args;
}

const SKIPPED_LINE = /^DEBUG\|ignore::walk\|.*: ignoring (.+): (\d+) bytes$/;

/**
 * Runs ripgrep, reading its output as it comes and stopping it once enough matches arrived.
 * ripgrep opens files by path, so a folder swapped for a link mid-walk could show it a file
 * outside the tree: every match is checked afterwards by descriptor (`verifyMatches`).
 */
export async function ripgrepSearch(
  request: SearchRequest,
  options: { path?: string; maxFileBytes: number },
): Promise<SearchOutcome> {
  const info = await stat(request.directory);
  if (info.isFile() && info.size > options.maxFileBytes) {
    return {
      matches: [],
      truncated: false,
      engine: 'ripgrep',
      skipped: [{ file: request.directory, size: info.size }],
    };
  }
  // Parallel first; a search with more matches than the cap runs again in path order, stopping early.
  let found = await runRipgrep(request, info.isFile(), options, parallelMatchCap(request.maxMatches));
  if (found.overflowed) found = await runRipgrep(request, info.isFile(), options, request.maxMatches + 1);
  found.matches.sort(byFileAndLine);
  found.skipped.sort((a, b) => comparePaths(a.file, b.file));
  const matches = await verifyMatches(
    found.matches.slice(0, request.maxMatches + 1),
    options.maxFileBytes,
    request.signal,
  );
  matches.sort(byFileAndLine);
  const truncated = matches.length > request.maxMatches;
  return {
    matches: matches.slice(0, request.maxMatches),
    truncated,
    engine: 'ripgrep',
    skipped: found.skipped,
  };
}

/**
 * One ripgrep run that stops once it has more than `cap` matches (`overflowed`). A cap above
 * `maxMatches` runs on all threads in any order; at `maxMatches + 1`, in path order.
 */
function runRipgrep(
  request: SearchRequest,
  isFile: boolean,
  options: { path?: string; maxFileBytes: number },
  cap: number,
): Promise<{ matches: SearchMatch[]; skipped: SkippedFile[]; overflowed: boolean }> {
  const ordered = cap <= request.maxMatches + 1;
  return new Promise((resolve, reject) => {
    // Run inside the folder: ripgrep matches globs with a `/` against paths relative to it.
    const cwd = isFile ? dirname(request.directory) : request.directory;
    const target = isFile ? basename(request.directory) : '.';
    const child = childProcess().spawn(
      options.path ?? 'rg',
      ripgrepArguments(request, target, options.maxFileBytes, ordered),
      {
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const matches: SearchMatch[] = [];
    const skipped: SkippedFile[] = [];
    let errors = '';
    let stopped = false;
    const stop = () => {
      stopped = true;
      child.kill('SIGKILL');
    };
    request.signal.addEventListener('abort', stop, { once: true });
    eachLine(child.stderr, (line) => {
      const skip = SKIPPED_LINE.exec(line);
      if (skip) skipped.push({ file: resolvePath(cwd, skip[1] as string), size: Number(skip[2]) });
      else if (!line.startsWith('DEBUG|') && errors.length < 4096) errors += `${line}\n`;
    });
    eachLine(child.stdout, (line) => {
      if (stopped) return;
      const nul = line.indexOf('\0');
      const colon = line.indexOf(':', nul + 1);
      if (nul < 0 || colon < 0) return;
      matches.push({
        file: resolvePath(cwd, line.slice(0, nul)),
        line: Number(line.slice(nul + 1, colon)),
        content: clipLine(line.slice(colon + 1)),
      });
      if (matches.length >= cap) stop();
    });
    child.once('error', (error) => {
      request.signal.removeEventListener('abort', stop);
      reject(new RipgrepMissingError(error.message));
    });
    child.once('close', (code) => {
      request.signal.removeEventListener('abort', stop);
      if (request.signal.aborted) return reject(request.signal.reason);
      if (!stopped && code === 2 && /regex parse error|error parsing|unrecognized/i.test(errors)) {
        return reject(new RipgrepPatternError(errors.trim()));
      }
      resolve({ matches, skipped, overflowed: stopped && !ordered });
    });
  });
}

/** Splits a stream on `\n` only (readline would also split on a lone `\r` inside a line). */
function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const text = rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      onLine(text.slice(start, nl));
      start = nl + 1;
    }
    rest = text.slice(start);
  });
  stream.on('end', () => {
    if (rest !== '') onLine(rest);
  });
}
