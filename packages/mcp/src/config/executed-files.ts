import { stat } from 'node:fs/promises';
import { delimiter, isAbsolute, resolve } from 'node:path';
import type { McpServerSpec } from './server-spec.js';

/** What of a stdio server's entry decides which files its start runs or loads. */
export interface StartInputs {
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
}

/**
 * The words of an option string as a shell (and Node for `NODE_OPTIONS`) splits them: blanks
 * separate, single and double quotes group, a backslash escapes the next character.
 */
export function shellWords(value: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < value.length) word += value[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < value.length) {
      word += value[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

// A package name (`@scope/server`) or a URL is not a file of this machine.
const isUrl = (value: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(value);

/** What one argument may name: itself, or what follows `=` in `--opt=./file`. */
function argValue(arg: string): string | undefined {
  const value = arg.startsWith('-') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
  return value === '' || value.startsWith('-') || isUrl(value) ? undefined : value;
}

/**
 * What one `env` value may name: the value itself (`PYTHONSTARTUP=./startup.py`), each word of it
 * as an option string (`NODE_OPTIONS="--require ./pre.cjs --import=./hook.mjs"`), what follows `:`
 * in `-javaagent:/x/agent.jar`, and each entry of a `:` list (`LD_PRELOAD=/a.so:/b.so`).
 */
function envValues(value: string): string[] {
  const out = new Set<string>([value]);
  for (const word of shellWords(value)) {
    const named = argValue(word);
    if (named !== undefined) for (const entry of named.split(delimiter)) out.add(entry);
    if (word.startsWith('-') && word.includes(':')) out.add(word.slice(word.indexOf(':') + 1));
  }
  return [...out].filter((v) => v !== '' && !v.startsWith('-') && !isUrl(v));
}

/**
 * Every path a stdio server's start may run or load, as far as its entry says, resolved against
 * the server's `cwd` (where the server resolves them), whether or not it exists: every argument
 * (`./server.mjs`, `--require=./pre.cjs`, `--config=cfg.json`) and what every `env` value may name
 * (issue 26: `env: { NODE_OPTIONS: "--require ./pre2.cjs" }` ran a file the model could rewrite).
 */
export function startPaths(spec: StartInputs): string[] {
  const values = new Set<string>();
  for (const arg of spec.args) {
    const value = argValue(arg);
    if (value !== undefined) values.add(value);
  }
  for (const value of Object.values(spec.env)) for (const named of envValues(value)) values.add(named);
  return [...values].map((value) => (isAbsolute(value) ? value : resolve(spec.cwd, value)));
}

/**
 * The files a stdio server runs, as far as its entry says: the command when written as a path
 * (`./server.sh`, `/opt/srv/bin`), and every argument or `env` value that names an existing
 * regular file (see `startPaths`). A bare command (`node`, `npx`) is looked up on PATH and is not
 * listed; neither are the modules a script imports, which only its runtime knows. Naming more
 * files than the server loads only protects more: a file that is not there or is a folder is
 * left out. HTTP servers run nothing here: none.
 */
export async function executedFiles(spec: McpServerSpec): Promise<string[]> {
  if (spec.transport !== 'stdio') return [];
  const candidates = new Set<string>(startPaths(spec));
  if (spec.command.includes('/')) candidates.add(resolve(spec.cwd, spec.command));
  const files = await Promise.all(
    [...candidates].map(async (path) =>
      (await stat(path).catch(() => undefined))?.isFile() ? path : undefined,
    ),
  );
  return files.filter((path): path is string => path !== undefined);
}
