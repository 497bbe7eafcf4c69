import { join } from 'node:path';
import { MemoryError } from '@raf/core';
import { withFileLock as withLock } from '../io/file-lock.js';
import { ConfinedFolder } from '../workspace/confined-folder.js';

/** Where the lock of each page lives: inside the bundle, hidden, out of the pages' way. */
export const LOCK_FOLDER = '.raf/locks';

function lockPath(root: string, rel: string): string {
  return join(root, LOCK_FOLDER, `${rel.replaceAll('/', '%2F')}.lock`);
}

/**
 * Runs `work` while holding the lock of one bundle file, across threads and processes. Every
 * read-modify-write of a bundle file goes through it, so concurrent writers never lose each
 * other's changes. The lock folder is made without following links (a planted `.raf` link
 * cannot move the locks outside the bundle).
 */
export async function withFileLock<T>(
  root: string,
  rel: string,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  await new ConfinedFolder(root).mkdir(LOCK_FOLDER).catch((error: unknown) => {
    throw new MemoryError(
      `cannot make the lock folder ${join(root, LOCK_FOLDER)}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  });
  return withLock(lockPath(root, rel), work, {
    signal,
    failure: (message, cause) => new MemoryError(message, cause === undefined ? {} : { cause }),
  });
}
