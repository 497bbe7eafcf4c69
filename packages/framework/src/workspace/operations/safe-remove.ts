import { constants, open, readdir, rm, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { RACE_PROOF_DIRECTORIES } from './safe-directory.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Deletes `name` in the folder `parent` (a `/proc/self/fd/N` path) and everything below it, each
 * folder held open and entered with `O_NOFOLLOW`: a subfolder swapped for a link while the tree
 * is being removed is unlinked as a link, never followed (`rm -r` by path would delete what the
 * link points to).
 */
async function removeEntry(parent: string, name: string | Buffer): Promise<void> {
  // Names are bytes: a name that is not UTF-8 (`\xff.txt`) read as a string becomes U+FFFD and
  // names nothing, and its folder could never be emptied.
  const path = Buffer.concat([Buffer.from(`${parent}/`), Buffer.from(name)]);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    if (code(error) === 'ELOOP' || code(error) === 'ENOTDIR') return unlink(path);
    if (code(error) === 'ENOENT') return;
    throw error;
  }
  try {
    const held = `/proc/self/fd/${handle.fd}`;
    for (const child of await readdir(held, { encoding: 'buffer' })) await removeEntry(held, child);
  } finally {
    await handle.close();
  }
  await rmdir(path);
}

/** Deletes the folder `name` inside the held folder `parent` recursively, never following a link. */
export async function removeTree(parent: string, name: string): Promise<void> {
  if (!RACE_PROOF_DIRECTORIES) return rm(join(parent, name), { recursive: true });
  return removeEntry(parent, name);
}
