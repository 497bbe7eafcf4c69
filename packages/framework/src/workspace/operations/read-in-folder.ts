import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { PathChangedError, PathRejectedError } from '../../errors/tool-errors.js';
import { LocalFsOperations } from './local-fs-operations.js';

export interface ReadInFolderOptions {
  /** Largest file read, in bytes; a larger one is refused (code `EFBIG`). */
  maxBytes: number;
  signal: AbortSignal;
}

const local = new LocalFsOperations();

/**
 * Reads one file that must lie inside `folder`, for an extension reading what its config names
 * (spec files and their `$ref`s, ...) with the file tools' race-proof read: the folder's real path
 * is walked one descriptor at a time and no link is followed below it (`O_NOFOLLOW`), the file is
 * opened non-blocking (a FIFO cannot hang the read) and must be a regular file of at most
 * `maxBytes`. `path` is absolute or relative to `folder`; one outside it (`../x`, `/etc/passwd`)
 * is a `PathRejectedError`, and so is one that goes through a link.
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
  const root = await realpath(base);
  try {
    return await local.readFile(join(root, inside), options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (PathChangedError.isInstance(error) || code === 'ELOOP')
      throw new PathRejectedError(
        `'${path}' is a symbolic link or goes through one: links are not followed out of ${base}`,
        { cause: error },
      );
    throw error;
  }
}
