import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** Where `initdb` and `pg_ctl` are: Debian's versioned folder, or PATH. Undefined: none here. */
export function findPostgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    for (const version of readdirSync(base).sort().reverse()) {
      const bin = join(base, version, 'bin');
      if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
    }
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    return initdb ? join(initdb, '..') : undefined;
  } catch {
    return undefined;
  }
}

/** Why Postgres tests are skipped here (`undefined`: they run). */
export const postgresSkipReason = findPostgresBin()
  ? undefined
  : 'no PostgreSQL binaries (initdb, pg_ctl): apt-get install postgresql';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  /** A fresh database on the cluster, for one test's isolation. */
  createDatabase(name: string): string;
  stop(): void;
}

/**
 * Starts a throwaway cluster: `initdb -A trust --no-sync` into a temp folder, `pg_ctl start` on a
 * private port on 127.0.0.1 (as the `postgres` OS user when root, since the server refuses root).
 * About a second; `stop()` stops it and removes the folder.
 */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(postgresSkipReason);
  const root = mkdtempSync(join(tmpdir(), 'raf-pg-'));
  const data = join(root, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(root, Number(ids), Number(gid));
  }
  const run = (command: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], {
          stdio: 'pipe',
          cwd: root,
        })
      : execFileSync(join(bin, command), args, { stdio: 'pipe', cwd: root });
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '--no-sync', '-U', 'postgres', '-E', 'UTF8']);
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    join(root, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    'start',
  ]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    createDatabase(name) {
      execFileSync(join(bin, 'psql'), ['-q', '-d', url, '-c', `CREATE DATABASE "${name}"`], {
        stdio: 'pipe',
      });
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
