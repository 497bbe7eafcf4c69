import { open, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
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

async function readHolder(path: string): Promise<LeaseHolder | 'missing' | 'unreadable'> {
  try {
    const parsed = holderSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    return parsed.success ? parsed.data : 'unreadable';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    if (error instanceof SyntaxError) return 'unreadable';
    throw error;
  }
}

async function olderThan(path: string, ms: number): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
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
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const seen = await readHolder(path);
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
    const again = await readHolder(path);
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

/** Removes the lock file if `token` still holds it. */
export async function unlockFile(path: string, token: string): Promise<void> {
  const seen = await readHolder(path).catch(() => 'missing' as const);
  if (typeof seen === 'object' && seen.token === token) await rm(path, { force: true });
}

/** Pushes the expiry forward (other hosts judge the holder by it). */
export async function renewLockFile(path: string, holder: LeaseHolder, ttlMs: number): Promise<void> {
  const seen = await readHolder(path);
  if (typeof seen !== 'object' || seen.token !== holder.token) return;
  holder.expiresAt = Date.now() + ttlMs;
  await writeFile(path, JSON.stringify(holder));
  const now = new Date();
  await utimes(path, now, now);
}
