import { lstat, stat } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import { startPaths } from '../config/executed-files.js';

/** What a stdio server's start runs: the command's file and every argument or `env` value that names a file. */
export interface StartSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}

async function identity(path: string): Promise<string | undefined> {
  // The link itself and what it leads to: replacing either changes the ctime, which no unprivileged
  // process can set back (mtime can be forged with utimes; ctime cannot).
  const [link, target] = await Promise.all([
    lstat(path).catch(() => undefined),
    stat(path).catch(() => undefined),
  ]);
  if (!link || !target?.isFile()) return undefined;
  const id = (s: typeof link) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.mode}`;
  return `${id(link)}|${id(target)}`;
}

async function onPath(command: string, env: StartSpec['env']): Promise<string | undefined> {
  for (const dir of (env.PATH ?? process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    if ((await stat(candidate).catch(() => undefined))?.isFile()) return candidate;
  }
  return undefined;
}

/** The command's file (looked up on PATH when bare), or undefined when there is none. */
export async function commandFile(spec: StartSpec): Promise<string | undefined> {
  if (!spec.command.includes('/')) return onPath(spec.command, spec.env);
  const path = resolve(spec.cwd, spec.command);
  return (await stat(path).catch(() => undefined))?.isFile() ? path : undefined;
}

/**
 * The files a stdio server's start executes or loads, each with its identity (device, inode, size,
 * times, mode): the command (looked up on PATH when bare) and the arguments and `env` values that
 * name a regular file (relative to `cwd`; `--opt=./file`, `NODE_OPTIONS="--require ./x.cjs"` too). Folders and names that are not files are left
 * out: a server's data folder changes as it works.
 */
export async function fingerprintOf(spec: StartSpec): Promise<Map<string, string>> {
  const paths = new Set<string>();
  const command = await commandFile(spec);
  if (command) paths.add(command);
  for (const path of startPaths(spec)) paths.add(path);
  const out = new Map<string, string>();
  await Promise.all(
    [...paths].map(async (path) => {
      const id = await identity(path);
      if (id !== undefined) out.set(path, id);
    }),
  );
  return out;
}

/** The files of `before` that are gone or changed now (a file new since is not in `before`). */
export async function changedSince(before: ReadonlyMap<string, string>): Promise<string[]> {
  const changed: string[] = [];
  await Promise.all(
    [...before].map(async ([path, id]) => {
      if ((await identity(path)) !== id) changed.push(path);
    }),
  );
  return changed.sort();
}
