import { lstat, mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { PathRejectedError } from '../errors/tool-errors.js';
import { withFileLock } from '../io/file-lock.js';
import { LocalFsOperations } from './operations/local-fs-operations.js';
import { PathChangedError, RACE_PROOF_DIRECTORIES, withDirectory } from './operations/safe-directory.js';
import type { DirectoryEntry, EntryInfo } from './operations/tool-operations.js';

/** A regular file a walk found, relative to the folder (`/`-separated). */
export interface ConfinedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface ConfinedWalk {
  files: ConfinedFile[];
  /** Entries left out: links (never followed), FIFOs, devices, sockets, unreadable folders. */
  refused: { path: string; reason: string }[];
  /** The walk stopped at `maxFiles`. */
  truncated: boolean;
}

export interface ConfinedWalkOptions {
  signal: AbortSignal;
  /** Stop after this many files (default 100,000). */
  maxFiles?: number;
  /** Folders deeper than this are not entered (default 64). */
  maxDepth?: number;
  /** Names (files or folders) not looked at, as `(name, relativePath) => boolean`. */
  skip?: (name: string, path: string) => boolean;
  /** Start below the root (`/`-separated). */
  under?: string;
}

/** What a file read refuses, as a code a caller can test (`error.code` on the cause). */
export type ConfinedRefusal = 'link' | 'not-regular' | 'too-large';

const DEFAULT_MAX_FILES = 100_000;
const DEFAULT_MAX_DEPTH = 64;
const TEMPORARY = /^\..+\.[0-9a-f]{12}\.raf-tmp$/;

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * One folder a configuration names (a wiki vault, a knowledge folder, a memory bundle, a skill),
 * read and written the way the workspace tools do it: every path is relative to the folder and
 * reached from its real location one descriptor at a time (`O_NOFOLLOW`), so no symbolic link
 * anywhere below the folder is followed, even one planted between a check and its use; files are
 * opened non-blocking and must be regular (a FIFO or a device is refused, never waited on);
 * reads are capped in size; writes are atomic (temporary file + rename). The folder itself may be
 * reached through links: it is resolved once, on first use.
 */
export class ConfinedFolder {
  /** The folder as configured (absolute). */
  readonly root: string;
  private realRoot: Promise<string> | undefined;
  private local: { root: string; fs: LocalFsOperations } | undefined;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The folder's real path (every link resolved), created first when `create`. */
  real(create = false): Promise<string> {
    this.realRoot ??= (async () => {
      if (create) await mkdir(this.root, { recursive: true });
      return realpath(this.root);
    })().catch((error: unknown) => {
      this.realRoot = undefined;
      throw error;
    });
    return this.realRoot;
  }

  /** Whether an error is a missing file or folder (`ENOENT`/`ENOTDIR`), not a refusal. */
  static isMissing(error: unknown): boolean {
    return isMissing(error);
  }

  /** The operations, with the real root opened in one step (everything below it by descriptor). */
  private async fs(): Promise<LocalFsOperations> {
    const root = await this.real();
    if (this.local?.root !== root) this.local = { root, fs: new LocalFsOperations(root) };
    return this.local.fs;
  }

  /** `rel` made safe: relative, no `..`, no NUL; `/`-separated. Throws `PathRejectedError`. */
  static check(rel: string): string {
    if (rel.includes('\0')) throw new PathRejectedError(`'${rel}' contains a NUL byte`);
    if (isAbsolute(rel)) throw new PathRejectedError(`'${rel}' must be relative to its folder`);
    const parts = rel.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
    if (parts.includes('..')) throw new PathRejectedError(`'${rel}' leaves its folder ('..')`);
    return parts.join('/');
  }

  /** The configured absolute path of `rel` (for messages and ids; act through the methods). */
  pathOf(rel: string): string {
    return join(this.root, ConfinedFolder.check(rel));
  }

  /** `absolute` relative to the folder (configured or real spelling), or undefined when outside. */
  async relativeOf(absolute: string): Promise<string | undefined> {
    const path = resolve(absolute);
    for (const root of [this.root, await this.real().catch(() => this.root)]) {
      if (path === root) return '';
      if (path.startsWith(root + sep))
        return path
          .slice(root.length + 1)
          .split(sep)
          .join('/');
    }
    return undefined;
  }

  private async target(rel: string, create = false): Promise<string> {
    const safe = ConfinedFolder.check(rel);
    const root = await this.real(create);
    const path = safe === '' ? root : join(root, safe);
    // Without descriptor paths (not Linux) the walk is by name: refuse a link on the way at least.
    if (!RACE_PROOF_DIRECTORIES) await this.refuseLinksOnTheWay(root, safe);
    return path;
  }

  private async refuseLinksOnTheWay(root: string, safe: string): Promise<void> {
    let path = root;
    for (const part of safe.split('/').filter(Boolean)) {
      path = join(path, part);
      const info = await lstat(path).catch(() => undefined);
      if (!info) return;
      if (info.isSymbolicLink()) throw new PathChangedError(path);
    }
  }

  private refusal(rel: string, error: unknown): Error {
    const code = errno(error);
    if (PathChangedError.isInstance(error) || code === 'ELOOP')
      return Object.assign(
        new PathRejectedError(`'${rel}' is (or goes through) a symbolic link; links are not followed here`, {
          cause: error,
        }),
        { refusal: 'link' satisfies ConfinedRefusal },
      );
    if (code === 'ENOTREG')
      return Object.assign(
        new PathRejectedError(`'${rel}' is not a regular file (FIFOs, devices and sockets are refused)`, {
          cause: error,
        }),
        { refusal: 'not-regular' satisfies ConfinedRefusal },
      );
    if (code === 'EFBIG')
      return Object.assign(new PathRejectedError(`'${rel}': ${(error as Error).message}`, { cause: error }), {
        refusal: 'too-large' satisfies ConfinedRefusal,
      });
    return error as Error;
  }

  /**
   * Reads a regular file below the folder; a link on the way or at the end, a FIFO, a device or a
   * file over `maxBytes` is a `PathRejectedError` (with `refusal`); a missing file is `ENOENT`.
   */
  async readFile(rel: string, options: { maxBytes: number; signal: AbortSignal }): Promise<Buffer> {
    const path = await this.target(rel);
    return (await this.fs()).readFile(path, options).catch((error: unknown) => {
      throw this.refusal(rel, error);
    });
  }

  /** `readFile`, with a missing file (or missing folder on the way) as `undefined`. */
  async readOptional(
    rel: string,
    options: { maxBytes: number; signal: AbortSignal },
  ): Promise<Buffer | undefined> {
    try {
      return await this.readFile(rel, options);
    } catch (error) {
      if (errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR') return undefined;
      throw error;
    }
  }

  /** Replaces the file atomically, creating missing folders, never through a link. */
  async writeFile(rel: string, data: Uint8Array | string, options: { signal: AbortSignal }): Promise<void> {
    const path = await this.target(rel, true);
    await (await this.fs()).writeFile(path, data, options).catch((error: unknown) => {
      throw this.refusal(rel, error);
    });
  }

  /** `mkdir -p` below the folder, never through a link. */
  async mkdir(rel: string): Promise<void> {
    const path = await this.target(rel, true);
    // Held folder by held folder: a link on the way is refused, not followed.
    await withDirectory(path, true, async () => {}, await this.real()).catch((error: unknown) => {
      throw this.refusal(rel, error);
    });
  }

  /** Deletes a file (a link is removed itself, never its target); a missing one is fine. */
  async remove(rel: string): Promise<void> {
    const path = await this.target(rel);
    await (await this.fs()).remove(path).catch((error: unknown) => {
      if (errno(error) === 'ENOENT') return;
      throw this.refusal(rel, error);
    });
  }

  /** What is at `rel` without following a link there or on the way (undefined when nothing is). */
  async entry(rel: string): Promise<EntryInfo | undefined> {
    const path = await this.target(rel);
    const fs = await this.fs();
    return withDirectory(
      dirname(path),
      false,
      (dir) => fs.lstat(dir.at(basename(path))),
      await this.real(),
    ).catch(() => undefined);
  }

  /** The entries of one folder below the root (links listed as `symlink`, never entered). */
  async list(rel: string): Promise<DirectoryEntry[]> {
    const path = await this.target(rel);
    return (await this.fs()).list(path).catch((error: unknown) => {
      throw this.refusal(rel, error);
    });
  }

  /**
   * Every regular file below the folder (or `under`), in path order, folder by held folder: links
   * are listed as refused and never followed, and so are FIFOs, devices and sockets.
   */
  async walk(options: ConfinedWalkOptions): Promise<ConfinedWalk> {
    const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
    const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    const result: ConfinedWalk = { files: [], refused: [], truncated: false };
    const visit = async (rel: string, depth: number): Promise<void> => {
      options.signal.throwIfAborted();
      let entries: DirectoryEntry[];
      try {
        entries = await this.list(rel);
      } catch (error) {
        result.refused.push({ path: rel, reason: (error as Error).message });
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (result.truncated) return;
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (options.skip?.(entry.name, path)) continue;
        if (entry.kind === 'dir') {
          if (depth < maxDepth) await visit(path, depth + 1);
        } else if (entry.kind === 'file') {
          if (result.files.length >= maxFiles) {
            result.truncated = true;
            return;
          }
          const info = await lstat(join(await this.real(), path)).catch(() => undefined);
          result.files.push({ path, size: entry.size, mtimeMs: info?.mtimeMs ?? 0 });
        } else {
          const reason = entry.kind === 'symlink' ? 'a symbolic link (not followed)' : 'not a regular file';
          result.refused.push({ path, reason });
        }
      }
    };
    await visit(options.under === undefined ? '' : ConfinedFolder.check(options.under), 0);
    return result;
  }

  /**
   * Removes the temporary files interrupted writes left (`.name.<hex>.raf-tmp`) older than
   * `maxAgeMs`, in the folders a walk reaches; returns how many went.
   */
  async sweepTemporary(maxAgeMs: number, signal: AbortSignal): Promise<number> {
    const root = await this.real();
    const now = Date.now();
    let removed = 0;
    const visit = async (rel: string, depth: number): Promise<void> => {
      signal.throwIfAborted();
      const entries = await this.list(rel).catch(() => [] as DirectoryEntry[]);
      for (const entry of entries) {
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.kind === 'dir' && depth < DEFAULT_MAX_DEPTH) await visit(path, depth + 1);
        else if (entry.kind === 'file' && TEMPORARY.test(entry.name)) {
          const info = await lstat(join(root, path)).catch(() => undefined);
          if (info && now - info.mtimeMs > maxAgeMs) {
            await this.remove(path).catch(() => undefined);
            removed++;
          }
        }
      }
    };
    await visit('', 0);
    return removed;
  }

  /**
   * Runs `work` holding the named lock of this folder (`.raf/locks/<name>.lock`, across threads and
   * processes; a dead holder's lock is taken over after 5 s). The lock folder is made without
   * following links.
   */
  async withLock<T>(
    name: string,
    work: () => Promise<T>,
    options: { signal?: AbortSignal; failure: (message: string, cause?: unknown) => Error },
  ): Promise<T> {
    await this.mkdir('.raf/locks');
    const path = join(await this.real(), '.raf', 'locks', `${encodeURIComponent(name)}.lock`);
    return withFileLock(path, work, options);
  }
}

/** A missing file: for callers telling "not there" from "refused". */
export function isMissing(error: unknown): boolean {
  return errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR';
}
