import { constants } from 'node:fs';
import { type FileHandle, lstat, open, rm } from 'node:fs/promises';
import * as z from 'zod';
import { holderAlive, type LeaseHolder } from './lease-holder.js';

const holderSchema = z.object({
  token: z.string(),
  pid: z.number().int(),
  host: z.string(),
  expiresAt: z.number(),
});

// A lock file being written (or torn by a kill mid-write) has no holder to check: it is stale
// once older than this.
const UNREADABLE_STALE_MS = 5_000;

// A holder is a line of JSON; more is not a lock file of ours.
const MAX_HOLDER_BYTES = 4096;

/**
 * The holder written in the lock file at `path`. Opened without following a link and without
 * blocking (a FIFO planted there answers at once), and only a small regular file is read:
 * anything else is `unreadable`, which goes stale like a torn file.
 */
export async function readLockHolder(path: string): Promise<LeaseHolder | 'missing' | 'unreadable'> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR') return 'unreadable';
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_HOLDER_BYTES) return 'unreadable';
    const parsed = holderSchema.safeParse(JSON.parse(await handle.readFile('utf8')));
    return parsed.success ? parsed.data : 'unreadable';
  } catch (error) {
    if (error instanceof SyntaxError) return 'unreadable';
    throw error;
  } finally {
    await handle.close();
  }
}

async function olderThan(path: string, ms: number): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  return info !== undefined && Date.now() - info.mtimeMs > ms;
}

/**
 * Takes the lock file `path` for `holder` (created exclusively, holding pid, host and token), or
 * returns false while a live holder has it. A dead holder's file is removed under a short takeover
 * guard, so two acquirers never both remove a lock and both think they own it.
 */
export async function tryLockFile(path: string, holder: LeaseHolder): Promise<boolean> {
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify(holder));
    } catch (error) {
      // A full disk: no empty lock file is left for the next acquirer to wait out.
      await handle.close();
      await rm(path, { force: true });
      throw error;
    }
    await handle.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const seen = await readLockHolder(path);
  if (seen === 'missing') return false; // released meanwhile: the next attempt creates it
  const stale = seen === 'unreadable' ? await olderThan(path, UNREADABLE_STALE_MS) : !holderAlive(seen);
  if (!stale) return false;
  const guard = `${path}.takeover`;
  try {
    await (await open(guard, 'wx', 0o600)).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A taker killed inside its guard leaves it behind.
    if (await olderThan(guard, UNREADABLE_STALE_MS)) await rm(guard, { force: true });
    return false;
  }
  try {
    const again = await readLockHolder(path);
    const same =
      again === 'unreadable'
        ? seen === 'unreadable'
        : again !== 'missing' && seen !== 'unreadable' && again.token === seen.token;
    if (same) await rm(path, { force: true });
  } finally {
    await rm(guard, { force: true });
  }
  return false; // the caller's next attempt creates it (or loses to a faster one)
}

/**
 * Runs `body` while no takeover of the lock file `path` can happen (under the takeover guard
 * `tryLockFile` takes before it removes a dead holder's file), if `token` still holds it; returns
 * false, without running `body`, when it does not. This is the fence of a journal append: a holder
 * whose lease expired and was taken over never writes after the taker. Waits for a guard held by a
 * taker (removing one left by a killed taker, as `tryLockFile` does).
 */
export async function whileHolding(path: string, token: string, body: () => Promise<void>): Promise<boolean> {
  const guard = `${path}.takeover`;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      await (await open(guard, 'wx', 0o600)).close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await olderThan(guard, UNREADABLE_STALE_MS)) await rm(guard, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
  try {
    const seen = await readLockHolder(path);
    if (typeof seen !== 'object' || seen.token !== token) return false;
    await body();
    return true;
  } finally {
    await rm(guard, { force: true });
  }
}

/** Removes the lock file if `token` still holds it. */
export async function unlockFile(path: string, token: string): Promise<void> {
  const seen = await readLockHolder(path).catch(() => 'missing' as const);
  if (typeof seen === 'object' && seen.token === token) await rm(path, { force: true });
}

/** Pushes the expiry forward (other hosts judge the holder by it). */
export async function renewLockFile(path: string, holder: LeaseHolder, ttlMs: number): Promise<void> {
  const seen = await readLockHolder(path);
  if (typeof seen !== 'object' || seen.token !== holder.token) return;
  holder.expiresAt = Date.now() + ttlMs;
  // Rewritten in place without following a link (one swapped in since the read is not written through).
  const handle = await open(
    path,
    constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  );
  try {
    await handle.writeFile(JSON.stringify(holder));
    const now = new Date();
    await handle.utimes(now, now);
  } finally {
    await handle.close();
  }
}
