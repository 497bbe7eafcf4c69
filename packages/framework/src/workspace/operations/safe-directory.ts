import { existsSync } from 'node:fs';
import { constants, type FileHandle, lstat, mkdir, open } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { PathChangedError } from '../../errors/tool-errors.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

/** Linux exposes open descriptors as paths: the way to get `openat` semantics from Node's fs API. */
const FD_PATHS = process.platform === 'linux' && existsSync('/proc/self/fd');

/** Whether directory references are held by descriptor (race-proof) or only by path (weaker). */
export const RACE_PROOF_DIRECTORIES = FD_PATHS;

/** A directory held open: names resolved `at()` it cannot be redirected by renaming its parents. */
export interface DirectoryRef {
  at(name: string): string;
  close(): Promise<void>;
}

/** The error when a checked path changed (a component became a link) before it was used. */
export { PathChangedError };

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Opens an absolute, symlink-free directory path one component at a time, refusing to follow any
 * link (`O_NOFOLLOW`), optionally creating missing components (`mkdir -p`). Because each step is
 * relative to the previous descriptor, swapping a checked folder for a link cannot send the
 * operation elsewhere: it fails with `PathChangedError` instead.
 */
export async function openDirectory(path: string, create: boolean, trusted?: string): Promise<DirectoryRef> {
  if (!FD_PATHS) {
    if (create) await mkdir(path, { recursive: true });
    return { at: (name) => join(path, name), close: async () => {} };
  }
  // A trusted prefix (a real, link-free folder the caller resolved once) is opened in one step:
  // only the components below it are walked.
  const below = trusted !== undefined && (path === trusted || path.startsWith(trusted + sep));
  let handle: FileHandle = await open(below ? trusted : '/', O_RDONLY | O_DIRECTORY);
  try {
    for (const part of (below ? path.slice(trusted.length) : path).split(sep)) {
      if (part === '') continue;
      const child = `/proc/self/fd/${handle.fd}/${part}`;
      if (create) {
        await mkdir(child).catch((error: unknown) => {
          if (code(error) !== 'EEXIST') throw error;
        });
      }
      let next: FileHandle;
      try {
        next = await open(child, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (error) {
        if (code(error) === 'ELOOP') throw new PathChangedError(path);
        // ENOTDIR is a link that appeared (changed) or a plain file on the way (`a.txt/x`): the
        // latter keeps its own error, which the tools word as "Not a directory".
        if (code(error) === 'ENOTDIR') {
          const link = await lstat(child).then(
            (info) => info.isSymbolicLink(),
            () => true,
          );
          if (link) throw new PathChangedError(path);
        }
        throw error;
      }
      await handle.close();
      handle = next;
    }
  } catch (error) {
    await handle.close();
    throw error;
  }
  const held = handle;
  return { at: (name) => `/proc/self/fd/${held.fd}/${name}`, close: () => held.close() };
}

/** Runs `work` with the directory held open, closing it afterwards. */
export async function withDirectory<T>(
  path: string,
  create: boolean,
  work: (directory: DirectoryRef) => Promise<T>,
  trusted?: string,
): Promise<T> {
  const directory = await openDirectory(path, create, trusted);
  try {
    return await work(directory);
  } finally {
    await directory.close();
  }
}
