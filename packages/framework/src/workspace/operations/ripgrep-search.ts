import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { basename, dirname, resolve as resolvePath } from 'node:path';
import { createInterface } from 'node:readline';
import { byFileAndLine, clipLine, SEARCH_LIMITS } from './search-limits.js';
import type { SearchMatch, SearchOutcome, SearchRequest } from './tool-operations.js';

/** ripgrep reported a problem with the pattern itself (its regex dialect differs from JS). */
export class RipgrepPatternError extends Error {}

const probes = new Map<string, Promise<boolean>>();

/** Whether `rg` runs on this machine (checked once per path). */
export function hasRipgrep(path = 'rg'): Promise<boolean> {
  let probe = probes.get(path);
  if (!probe) {
    probe = new Promise((resolve) => {
      const child = spawn(path, ['--version'], { stdio: 'ignore' });
      child.once('error', () => resolve(false));
      child.once('close', (code) => resolve(code === 0));
    });
    probes.set(path, probe);
  }
  return probe;
}

/** The flags that make ripgrep walk exactly like the JS walker (see `SEARCH_LIMITS`). */
export function ripgrepArguments(request: SearchRequest, target = '.'): string[] {
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
    `--max-depth=${SEARCH_LIMITS.maxDepth}`,
    `--max-filesize=${SEARCH_LIMITS.maxFileBytes}`,
    '--max-columns=2000',
    '--max-columns-preview',
  ];
  if (request.caseInsensitive) args.push('--ignore-case');
  if (request.include) args.push(`--glob=${request.include}`);
  args.push('--regexp', request.pattern, '--', target);
  return args;
}

/** Runs ripgrep, reading its output as it comes and stopping it once enough matches arrived. */
export function ripgrepSearch(request: SearchRequest, path = 'rg'): Promise<SearchOutcome> {
  return new Promise((resolve, reject) => {
    // Run inside the folder: ripgrep matches globs with a `/` against paths relative to it.
    const isFile = statSync(request.directory, { throwIfNoEntry: false })?.isFile() ?? false;
    const cwd = isFile ? dirname(request.directory) : request.directory;
    const target = isFile ? basename(request.directory) : '.';
    const child = spawn(path, ripgrepArguments(request, target), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const matches: SearchMatch[] = [];
    let stderr = '';
    let stopped = false;
    const stop = () => {
      stopped = true;
      child.kill('SIGKILL');
    };
    request.signal.addEventListener('abort', stop, { once: true });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      if (stderr.length < 4096) stderr += text;
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      if (stopped) return;
      const nul = line.indexOf('\0');
      const colon = line.indexOf(':', nul + 1);
      if (nul < 0 || colon < 0) return;
      matches.push({
        file: resolvePath(cwd, line.slice(0, nul)),
        line: Number(line.slice(nul + 1, colon)),
        content: clipLine(line.slice(colon + 1)),
      });
      if (matches.length > request.maxMatches) stop();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      request.signal.removeEventListener('abort', stop);
      if (request.signal.aborted) return reject(request.signal.reason);
      if (!stopped && code === 2 && /regex parse error|error parsing|unrecognized/i.test(stderr)) {
        return reject(new RipgrepPatternError(stderr.trim()));
      }
      matches.sort(byFileAndLine);
      const truncated = matches.length > request.maxMatches;
      resolve({ matches: matches.slice(0, request.maxMatches), truncated, engine: 'ripgrep' });
    });
  });
}
