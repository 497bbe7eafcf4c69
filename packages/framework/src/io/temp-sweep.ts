import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../store/process-start.js';

/** Temporary files older than this are debris whoever wrote them. */
export const TEMP_MAX_AGE_MS = 60 * 60_000;

// `.<name>.<pid>-<uuid>.tmp` (writeFileAtomic) or `.<name>.<pid>.<hex>.tmp` (the workflow's).
const TEMP = /^\..*\.(\d+)[-.][0-9a-f-]+\.tmp$/;

/**
 * Removes the temporary files a killed writer left in `directory`: at once when the pid in the
 * name is gone, else once older than an hour (another host's, or an old name). Returns how many.
 * A folder that is missing or read-only is left as it is.
 */
export async function sweepTempFiles(directory: string, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith('.') || !name.endsWith('.tmp')) continue;
    const pid = Number(TEMP.exec(name)?.[1] ?? Number.NaN);
    const path = join(directory, name);
    const dead = Number.isInteger(pid) && pid > 0 && !processAlive(pid);
    const old = dead || now - ((await stat(path).catch(() => undefined))?.mtimeMs ?? now) > TEMP_MAX_AGE_MS;
    if (!old) continue;
    if (
      await rm(path, { force: true }).then(
        () => true,
        () => false,
      )
    )
      removed += 1;
  }
  return removed;
}
