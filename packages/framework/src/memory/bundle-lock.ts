import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { MemoryError } from '@raf/core';
import { lazyRequire } from '../lazy-require.js';

/** Where the lock of each page lives: inside the bundle, hidden, out of the pages' way. */
export const LOCK_FOLDER = '.raf/locks';

/**
 * A lock older than this (not refreshed by a live holder) was left by a crashed process and is
 * taken over. Holders refresh theirs every second, so only a dead or frozen one goes stale.
 */
const STALE_MS = 5000;

// Loaded with the first lock: a run that never writes memory never loads it.
const lockfile = lazyRequire<typeof import('proper-lockfile')>('proper-lockfile');

// Locks of this process, by lock path: a second writer in one process queues here instead of
// polling the lock folder.
const local = new Map<string, Promise<unknown>>();

function lockPath(root: string, rel: string): string {
  return join(root, LOCK_FOLDER, `${rel.replaceAll('/', '%2F')}.lock`);
}

/**
 * Runs `work` while holding the lock of one bundle file, across threads and processes
 * (`proper-lockfile`: an atomic `mkdir`, refreshed while held, taken over when stale). Every
 * read-modify-write of a bundle file goes through it, so concurrent writers never lose each
 * other's changes.
 */
export async function withFileLock<T>(
  root: string,
  rel: string,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const path = lockPath(root, rel);
  const before = local.get(path) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(() => holding(root, path, work, signal));
  const tail = run.catch(() => undefined);
  local.set(path, tail);
  void tail.then(() => {
    if (local.get(path) === tail) local.delete(path);
  });
  return run;
}

async function holding<T>(
  root: string,
  path: string,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  signal?.throwIfAborted();
  await mkdir(join(root, LOCK_FOLDER), { recursive: true });
  let compromised: Error | undefined;
  const release = await lockfile()
    .lock(path, {
      realpath: false,
      lockfilePath: path,
      stale: STALE_MS,
      update: 1000,
      retries: { retries: 400, factor: 1.3, minTimeout: 2, maxTimeout: 50 },
      onCompromised: (error) => {
        compromised = error;
      },
    })
    .catch((error: unknown) => {
      throw new MemoryError(`cannot lock ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    });
  try {
    const result = await work();
    if (compromised) throw new MemoryError(`the lock ${path} was lost: ${compromised.message}`);
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}
