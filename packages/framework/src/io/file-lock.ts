import { LEASE_TTL_MS, newHolder, renewEvery } from '../store/lease-holder.js';
import { readLockHolder, renewLockFile, tryLockFile, unlockFile } from '../store/lock-file.js';

// Locks of this process, by lock path: a second writer in one process queues here instead of
// polling the lock file.
const local = new Map<string, Promise<unknown>>();

/** How long a lock another holder keeps is waited for: backoff from 2 ms up to 50 ms, ~20 s in all. */
const WAIT_MS = 20_000;

export interface FileLockOptions {
  signal?: AbortSignal | undefined;
  /** The error to throw when the lock cannot be taken or was lost (the caller's branded class). */
  failure: (message: string, cause?: unknown) => Error;
}

/**
 * Runs `work` while holding the lock file at `path` (its folder must exist), across threads and
 * processes. The same lock files as the sessions' leases (`store/lock-file.ts`): created
 * exclusively with the holder's pid, host and token; a dead holder's (same host: its pid is gone;
 * another host: its renewed expiry passed) is taken over; something else at the path (a link, a
 * FIFO, a folder) is never followed or waited on.
 */
export async function withFileLock<T>(
  path: string,
  work: () => Promise<T>,
  options: FileLockOptions,
): Promise<T> {
  const before = local.get(path) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(() => holding(path, work, options));
  const tail = run.catch(() => undefined);
  local.set(path, tail);
  void tail.then(() => {
    if (local.get(path) === tail) local.delete(path);
  });
  return run;
}

/**
 * Takes the lock, waiting (with backoff) only while another holder has it: any other failure (a
 * read-only or full disk, a missing folder) is thrown at once, not retried for 20 s.
 */
async function acquire(path: string, options: FileLockOptions): Promise<ReturnType<typeof newHolder>> {
  const holder = newHolder();
  const started = Date.now();
  for (let wait = 2; ; wait = Math.min(50, Math.ceil(wait * 1.3))) {
    options.signal?.throwIfAborted();
    let taken: boolean;
    try {
      taken = await tryLockFile(path, holder);
    } catch (error) {
      throw options.failure(`cannot lock ${path}: ${(error as Error).message}`, error);
    }
    if (taken) return holder;
    if (Date.now() - started > WAIT_MS)
      throw options.failure(`cannot lock ${path}: another process holds it (waited ${WAIT_MS / 1000} s)`);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

async function holding<T>(path: string, work: () => Promise<T>, options: FileLockOptions): Promise<T> {
  options.signal?.throwIfAborted();
  const holder = await acquire(path, options);
  const stopRenewing = renewEvery(() => renewLockFile(path, holder, LEASE_TTL_MS));
  try {
    const result = await work();
    // Taken over while we worked (we froze past the expiry another host judges us by): say so.
    const now = await readLockHolder(path).catch(() => 'missing' as const);
    if (typeof now !== 'object' || now.token !== holder.token)
      throw options.failure(`the lock ${path} was lost while it was held`);
    return result;
  } finally {
    stopRenewing();
    await unlockFile(path, holder.token).catch(() => undefined);
  }
}
