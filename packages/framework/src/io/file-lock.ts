import { lazyRequire } from '../lazy-require.js';

/**
 * A lock older than this (not refreshed by a live holder) was left by a crashed process and is
 * taken over. Holders refresh theirs every second, so only a dead or frozen one goes stale.
 */
const STALE_MS = 5000;

// Loaded with the first lock: a run that never writes never loads it.
const lockfile = lazyRequire<typeof import('proper-lockfile')>('proper-lockfile');

// Locks of this process, by lock path: a second writer in one process queues here instead of
// polling the lock folder.
const local = new Map<string, Promise<unknown>>();

/** How long a lock another holder keeps is waited for: backoff from 2 ms up to 50 ms, ~20 s in all. */
const WAIT_MS = 20_000;

/**
 * Takes the lock, waiting (with backoff) only while another process holds it: any other failure
 * (a read-only or full disk, a missing folder) is thrown at once, not retried for 20 s.
 */
async function acquire(
  path: string,
  options: FileLockOptions,
  onCompromised: (error: Error) => void,
): Promise<() => Promise<void>> {
  const started = Date.now();
  for (let wait = 2; ; wait = Math.min(50, Math.ceil(wait * 1.3))) {
    options.signal?.throwIfAborted();
    try {
      return await lockfile().lock(path, {
        realpath: false,
        lockfilePath: path,
        stale: STALE_MS,
        update: 1000,
        retries: 0,
        onCompromised,
      });
    } catch (error) {
      const held = (error as NodeJS.ErrnoException).code === 'ELOCKED';
      if (!held || Date.now() - started > WAIT_MS)
        throw options.failure(`cannot lock ${path}: ${(error as Error).message}`, error);
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

export interface FileLockOptions {
  signal?: AbortSignal | undefined;
  /** The error to throw when the lock cannot be taken or was lost (the caller's branded class). */
  failure: (message: string, cause?: unknown) => Error;
}

/**
 * Runs `work` while holding the lock at `path` (its folder must exist), across threads and
 * processes (`proper-lockfile`: an atomic `mkdir`, refreshed while held, taken over when stale).
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

async function holding<T>(path: string, work: () => Promise<T>, options: FileLockOptions): Promise<T> {
  options.signal?.throwIfAborted();
  let compromised: Error | undefined;
  const release = await acquire(path, options, (error) => {
    compromised = error;
  });
  try {
    const result = await work();
    if (compromised) throw options.failure(`the lock ${path} was lost: ${compromised.message}`);
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}
