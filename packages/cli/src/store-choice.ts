import { resolve } from 'node:path';
import { DEFAULT_STORE_URL, parseStoreUrl } from '@raf/core';
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
 * Where MCP servers' OAuth tokens are kept: `<DIR>/mcp-auth` of a `file:DIR` store, else the
 * local `.raf/mcp-auth` (a user's tokens stay on the machine that logged in). A protected path.
 */
export function mcpCredentialsDir(args: CliArgs, io: CliIO): string {
  const location = parseStoreUrl(storeChoice(args, io).url);
  return resolve(io.cwd, location.kind === 'file' ? location.directory : '.raf', 'mcp-auth');
}
