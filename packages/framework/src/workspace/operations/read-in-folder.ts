import { isAbsolute, relative, resolve, sep } from 'node:path';
import { PathRejectedError } from '../../errors/tool-errors.js';
import { ConfinedFolder } from '../confined-folder.js';

export interface ReadInFolderOptions {
  /** Largest file read, in bytes; a larger one is refused (code `EFBIG`). */
  maxBytes: number;
  signal: AbortSignal;
}

/**
 * Reads one file that must lie inside `folder`, for an extension reading what its config names
 * (spec files and their `$ref`s, ...): `ConfinedFolder.readFile` (the one race-proof read: the
 * folder's real path walked one descriptor at a time, no link followed below it, opened
 * non-blocking, a regular file of at most `maxBytes`) taking an absolute path or one relative to
 * `folder`. A path outside it (`../x`, `/etc/passwd`) or through a link is a `PathRejectedError`.
 */
export async function readFileInFolder(
  folder: string,
  path: string,
  options: ReadInFolderOptions,
): Promise<Buffer> {
  options.signal.throwIfAborted();
  const base = resolve(folder);
  const inside = relative(base, resolve(base, path));
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    throw new PathRejectedError(`'${path}' is outside the folder ${base}`);
  // The folder itself is what the config names (it may sit behind a link); below it, no link.
  return new ConfinedFolder(base).readFile(inside.split(sep).join('/'), options);
}
