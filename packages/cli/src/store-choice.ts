import { join, resolve } from 'node:path';
import { DEFAULT_STORE_URL, parseStoreUrl } from '@raf/core';
import type { GovernanceStore } from '@raf/framework';
import type { CliArgs } from './args.js';
import type { CliIO } from './io.js';

/**
 * Which store the command uses (SPEC §14.1): `--store URL`, else `--sessions-dir DIR` (sessions in
 * that folder, the rest in `.raf/`), else `RAF_STORE`, else `file:.raf` (sessions in `.raf/sessions`).
 */
export function storeChoice(args: CliArgs, io: CliIO): { url: string; sessionsDirectory?: string } {
  if (args.store !== undefined) return { url: args.store };
  if (args.sessionsDirGiven) return { url: DEFAULT_STORE_URL, sessionsDirectory: args.sessionsDir };
  const env = io.env.RAF_STORE;
  if (env) return { url: env };
  return { url: DEFAULT_STORE_URL, sessionsDirectory: args.sessionsDir };
}

/** The paths the model must not touch: the store's folder or SQLite file (beside `--sessions-dir`). */
export function storePaths(args: CliArgs, io: CliIO): string[] {
  const choice = storeChoice(args, io);
  const location = parseStoreUrl(choice.url);
  const paths = [resolve(io.cwd, args.sessionsDir)];
  // The default `.raf/` is protected as it is; a store chosen by URL is protected where it is.
  if (choice.sessionsDirectory !== undefined) return paths;
  if (location.kind === 'file') paths.push(resolve(io.cwd, location.directory));
  if (location.kind === 'sqlite') {
    const file = resolve(io.cwd, location.path);
    paths.push(file, `${file}-wal`, `${file}-shm`, `${file}-journal`);
  }
  return paths;
}

/**
 * Where governance lives when a store was chosen by URL (`--store`, `RAF_STORE`): the file store's
 * `governance.json`, or the SQLite/Postgres store, opened for each read or write and closed after.
 * Undefined: the default (`.raf/governance.json` beside the agent file, or `--governance FILE`).
 */
export function storeGovernance(args: CliArgs, io: CliIO): GovernanceStore | string | undefined {
  const choice = storeChoice(args, io);
  if (choice.sessionsDirectory !== undefined) return undefined;
  const location = parseStoreUrl(choice.url);
  if (location.kind === 'file') return join(resolve(io.cwd, location.directory), 'governance.json');
  if (location.kind === 'memory') return undefined;
  const withStore = async <T>(body: (governance: GovernanceStore) => Promise<T>): Promise<T> => {
    const store = await (await import('./opened-session.js')).openCliStore(args, io);
    try {
      return await body(store.governance);
    } finally {
      await store.close();
    }
  };
  return {
    load: (options) => withStore((g) => g.load(options)),
    save: (data, options) => withStore((g) => g.save(data, options)),
  };
}
