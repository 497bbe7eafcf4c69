import type { Stats } from 'node:fs';
import {
  constants,
  link,
  lstat,
  open,
  readdir,
  readlink,
  realpath,
  rename,
  stat,
  unlink,
} from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { nodeCrypto } from '../../lazy-builtins.js';
import { type DirectoryRef, PathChangedError, withDirectory } from './safe-directory.js';
import { removeTree } from './safe-remove.js';
import type { DirectoryEntry, EntryInfo, FsOperations } from './tool-operations.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;
/**
 * The smallest first buffer of a read: procfs files report size 0 and hold a few KiB; a larger
 * file starts at its own size (one read), so a small file costs no large buffer.
 */
const FIRST_READ_BYTES = 4096;
/** How many entries `list` inspects at once. */
const LIST_BATCH = 256;

function toInfo(stats: Stats): EntryInfo {
  return {
    kind: stats.isSymbolicLink()
      ? 'symlink'
      : stats.isDirectory()
        ? 'directory'
        : stats.isFile()
          ? 'file'
          : 'other',
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    birthtimeMs: stats.birthtimeMs,
    readonly: (stats.mode & 0o222) === 0,
  };
}

function errorWithCode(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

function isErrno(error: unknown, ...codes: string[]): boolean {
  return codes.includes((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const handle = await open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: unknown) => {
    if (isErrno(error, 'ELOOP')) throw new PathChangedError(path);
    throw error;
  });
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw errorWithCode('not a regular file (FIFOs, devices and sockets are refused)', 'ENOTREG');
    if (info.size > maxBytes)
      throw errorWithCode(`file is ${info.size} bytes, over the ${maxBytes}-byte limit`, 'EFBIG');
    // Read to the end, at most one byte past the limit (the file may grow after fstat). The size
    // is only a first guess: procfs and sysfs files report 0 and still hold text, so the buffer
    // grows until the end of the file or the limit, whichever comes first.
    let buffer = Buffer.allocUnsafe(Math.min(Math.max(info.size, FIRST_READ_BYTES), maxBytes) + 1);
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (filled > maxBytes) break;
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, filled);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes)
      throw errorWithCode(`file grew past the ${maxBytes}-byte limit while reading`, 'EFBIG');
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** Folders (and file systems without hard links) cannot be linked: check, then rename. */
async function renameUnlessExists(from: string, to: string): Promise<void> {
  const taken = await lstat(to).then(
    () => true,
    () => false,
  );
  if (taken) throw errorWithCode('Destination already exists', 'EEXIST');
  await rename(from, to);
}

/** The default backend: the local disk, with every directory reached without following links. */
export class LocalFsOperations implements FsOperations {
  /**
   * `trustedRoot`: a real (link-free) folder every path of this instance lies in, opened in one
   * step instead of component by component from `/` (a confined folder's root).
   */
  constructor(private readonly trustedRoot?: string) {}

  private within<T>(path: string, create: boolean, work: (dir: DirectoryRef) => Promise<T>): Promise<T> {
    return withDirectory(path, create, work, this.trustedRoot);
  }

  async lstat(path: string): Promise<EntryInfo> {
    return toInfo(await lstat(path));
  }

  async stat(path: string): Promise<EntryInfo> {
    return toInfo(await stat(path));
  }

  realpath(path: string): Promise<string> {
    return realpath(path);
  }

  readlink(path: string): Promise<string> {
    return readlink(path);
  }

  readFile(path: string, options: { maxBytes: number; signal: AbortSignal }): Promise<Buffer> {
    options.signal.throwIfAborted();
    return this.within(dirname(path), false, (dir) =>
      readRegularFile(dir.at(basename(path)), options.maxBytes),
    );
  }

  writeFile(path: string, data: Uint8Array | string, options: { signal: AbortSignal }): Promise<void> {
    options.signal.throwIfAborted();
    const name = basename(path);
    return this.within(dirname(path), true, async (dir) => {
      const existing = await lstat(dir.at(name)).catch(() => undefined);
      if (existing?.isDirectory()) throw errorWithCode(`'${path}' is a directory`, 'EISDIR');
      // A rename replaces a file whatever its own mode: a read-only file would be overwritten
      // where writing it in place is refused. Refused like that write (also when running as root).
      if (existing?.isFile() && (existing.mode & 0o222) === 0)
        throw errorWithCode(`EACCES: permission denied, the file is read-only: '${path}'`, 'EACCES');
      const mode = existing?.isFile() ? existing.mode & 0o7777 : 0o666;
      const temporary = dir.at(`.${name}.${nodeCrypto().randomBytes(6).toString('hex')}.raf-tmp`);
      const handle = await open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
      try {
        await handle.writeFile(data);
        await handle.sync();
      } catch (error) {
        await handle.close();
        await unlink(temporary).catch(() => {});
        throw error;
      }
      await handle.close();
      try {
        await rename(temporary, dir.at(name));
      } catch (error) {
        await unlink(temporary).catch(() => {});
        throw error;
      }
    });
  }

  async mkdir(path: string): Promise<boolean> {
    const existing = await lstat(path).catch(() => undefined);
    if (existing?.isDirectory()) return false;
    if (existing) throw errorWithCode(`'${path}' exists and is not a directory`, 'EEXIST');
    await this.within(path, true, async () => {});
    return true;
  }

  remove(path: string): Promise<void> {
    const name = basename(path);
    return this.within(dirname(path), false, async (dir) => {
      const target = dir.at(name);
      const info = await lstat(target);
      // A link itself is unlinked, never its target; a tree is removed folder by held folder.
      if (info.isDirectory()) await removeTree(dir.at(''), name);
      else await unlink(target);
    });
  }

  move(from: string, to: string): Promise<void> {
    return this.within(dirname(from), false, (source) =>
      this.within(dirname(to), true, async (destination) => {
        const src = source.at(basename(from));
        const dst = destination.at(basename(to));
        const info = await lstat(src);
        if (info.isDirectory()) {
          await renameUnlessExists(src, dst);
          return;
        }
        // link() refuses an existing destination atomically, where rename() would replace it.
        try {
          await link(src, dst);
        } catch (error) {
          if (isErrno(error, 'EEXIST')) throw errorWithCode('Destination already exists', 'EEXIST');
          if (!isErrno(error, 'EXDEV', 'EPERM', 'ENOTSUP')) throw error;
          await renameUnlessExists(src, dst);
          return;
        }
        await unlink(src);
      }),
    );
  }

  list(path: string): Promise<DirectoryEntry[]> {
    return this.within(path, false, async (dir) => {
      const names = await readdir(dir.at(''));
      const entryOf = async (name: string): Promise<DirectoryEntry> => {
        const info = await lstat(dir.at(name)).catch(() => undefined);
        if (!info) return { name, kind: 'unknown', size: 0 };
        const kind = info.isSymbolicLink()
          ? 'symlink'
          : info.isDirectory()
            ? 'dir'
            : info.isFile()
              ? 'file'
              : 'unknown';
        return { name, kind, size: info.size };
      };
      // In batches: one pending lstat per entry at once costs some kilobytes each, gigabytes for
      // a folder of a million entries (the process would run out of memory).
      const entries: DirectoryEntry[] = [];
      for (let at = 0; at < names.length; at += LIST_BATCH)
        entries.push(...(await Promise.all(names.slice(at, at + LIST_BATCH).map(entryOf))));
      return entries;
    });
  }
}
