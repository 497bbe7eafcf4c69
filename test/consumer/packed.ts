import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What the consumer test needs: the workspace packed as npm would publish it, installed with
 * plain npm into folders outside the repository, as a new user does.
 */
export const root = fileURLToPath(new URL('../..', import.meta.url));

/** npm's cache for these installs only (never the user's `~/.npm`), kept between runs. */
export const npmCache = join(tmpdir(), 'raf-consumer-npm-cache');

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number },
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The environment of every npm call: its own cache, no audit, no funding notes, no update check. */
export const NPM_ENV = {
  npm_config_cache: npmCache,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'warn',
  // The variables npm and pnpm set for the scripts they run: the consumer is plain npm.
  npm_config_user_agent: undefined,
};

/** `pnpm pack` of every workspace package (workspace:^ ranges become versions): name → tarball. */
export async function packAll(destination: string): Promise<Map<string, string>> {
  mkdirSync(destination, { recursive: true });
  const tarballs = new Map<string, string>();
  // Side by side: each is mostly a process starting and a folder read.
  await Promise.all(
    readdirSync(join(root, 'packages')).map(async (dir) => {
      const ran = await run('npx', ['-y', 'pnpm@12.4.2', 'pack', '--pack-destination', destination], {
        cwd: join(root, 'packages', dir),
        env: { npm_config_user_agent: undefined },
      });
      if (ran.code !== 0) throw new Error(`pnpm pack of packages/${dir} failed:\n${ran.stderr}`);
    }),
  );
  for (const file of readdirSync(destination)) {
    const name = /^raf-([a-z0-9-]+?)-\d/.exec(file)?.[1];
    if (name) tarballs.set(`@raf/${name}`, join(destination, file));
  }
  return tarballs;
}

/** A fresh ESM project folder. */
export function freshProject(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'raf-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  return dir;
}

export interface InstallFootprint {
  /** Packages under node_modules, nested ones included (each folder with a package.json). */
  packages: string[];
  /** Bytes of every file under node_modules (apparent size). */
  bytes: number;
}

/** What an install put on disk. */
export function footprint(project: string): InstallFootprint {
  const packages: string[] = [];
  let bytes = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) walk(path);
      else bytes += statSync(path).size;
    }
  };
  const modules = (dir: string, prefix = '') => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      if (entry.name.startsWith('@')) {
        modules(join(dir, entry.name), `${entry.name}/`);
        continue;
      }
      const path = join(dir, entry.name);
      if (existsSync(join(path, 'package.json'))) packages.push(`${prefix}${entry.name}`);
      modules(join(path, 'node_modules'));
    }
  };
  const nodeModules = join(project, 'node_modules');
  modules(nodeModules);
  walk(nodeModules);
  return { packages: packages.sort(), bytes };
}

/** `npm install` in `project`; fails the test on an error, returns npm's output. */
export async function npmInstall(project: string, specs: readonly string[]): Promise<string> {
  const ran = await run('npm', ['install', '--no-save', ...specs], { cwd: project, env: NPM_ENV });
  if (ran.code !== 0) throw new Error(`npm install ${specs.join(' ')} failed:\n${ran.stderr}`);
  return `${ran.stdout}\n${ran.stderr}`;
}
