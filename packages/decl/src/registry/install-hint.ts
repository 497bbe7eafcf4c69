import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package managers whose "add a package" command a hint may name. */
export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

const ADD: Readonly<Record<PackageManager, string>> = {
  npm: 'npm install',
  pnpm: 'pnpm add',
  yarn: 'yarn add',
  bun: 'bun add',
};

const LOCKFILES: readonly [string, PackageManager][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['bun.lock', 'bun'],
  ['bun.lockb', 'bun'],
  ['package-lock.json', 'npm'],
];

/**
 * The package manager the user runs: the one that started this process (`npm_config_user_agent`,
 * which npm, pnpm, yarn and bun set for their scripts and `exec`), else the one whose lockfile the
 * project nearest `folder` has, else npm (the one every Node install has).
 */
export function packageManager(
  folder: string = process.cwd(),
  env: Readonly<Record<string, string | undefined>> = process.env,
): PackageManager {
  const agent = /^(npm|pnpm|yarn|bun)\//.exec(env.npm_config_user_agent ?? '')?.[1];
  if (agent) return agent as PackageManager;
  for (let dir = folder; ; dir = dirname(dir)) {
    for (const [file, manager] of LOCKFILES) if (existsSync(join(dir, file))) return manager;
    if (dirname(dir) === dir) return 'npm';
  }
}

/** `npm install @raf/web` (or `pnpm add …`, `yarn add …`, `bun add …`: see `packageManager`). */
export function installCommand(name: string, folder?: string): string {
  return `${ADD[packageManager(folder)]} ${name}`;
}

/** Whether `error` says that `name` itself (not something it imports) is not installed. */
export function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = String((error as { message?: unknown }).message);
  return message.includes(`'${name}'`) || message.includes(`"${name}"`);
}
