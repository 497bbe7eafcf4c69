import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { nodeCrypto } from '../lazy-builtins.js';

/**
 * Replaces `file` with `text` so that a reader (or a crash) sees the old content or the new one,
 * never a torn file: written to a temporary sibling, flushed, then renamed over the target.
 */
export async function writeFileAtomic(
  file: string,
  text: string,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  options.signal?.throwIfAborted();
  await mkdir(dirname(file), { recursive: true });
  // The pid in the name lets `sweepTempFiles` remove a killed writer's file at once.
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}-${nodeCrypto().randomUUID()}.tmp`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(text, { encoding: 'utf8', ...(options.signal && { signal: options.signal }) });
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
