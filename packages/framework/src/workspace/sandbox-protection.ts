import { lstat, mkdir, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { withDirectory } from './operations/safe-directory.js';
import { isInside } from './path-guard.js';
import { type ProtectionIndex, protectionByName } from './protected-paths.js';

/** Reading the roots for protected entries before a sandboxed command stops after this many. */
export const SANDBOX_SCAN_LIMIT = 20_000;
/** Folders not searched for protected entries (too large, and not where secrets are kept). */
const SKIPPED = new Set(['node_modules']);

export interface SandboxProtection {
  /** Mounted read-only: every `.git` found, the readable protected paths. */
  readOnly: string[];
  /** Not visible at all: protected files and folders found. */
  hidden: { path: string; directory: boolean }[];
  /** The scan stopped at `SANDBOX_SCAN_LIMIT` entries: deeper protected files may be visible. */
  truncated: boolean;
}

/**
 * `<root>/.raf` is hidden even before it exists, so a command cannot plant governance or
 * sessions there: it is created (empty) when missing. A link there is refused.
 */
async function rafFolder(root: string): Promise<{ path: string; directory: boolean } | undefined> {
  const path = join(root, '.raf');
  let info = await lstat(path).catch(() => undefined);
  if (!info) {
    const created = await withDirectory(root, false, (dir) =>
      mkdir(dir.at('.raf')).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') return true;
          // A root this process cannot write to, the command (same user, no capabilities) cannot either.
          if (error.code === 'EROFS' || error.code === 'EACCES' || error.code === 'EPERM') return false;
          throw error;
        },
      ),
    );
    if (!created) return undefined;
    info = await lstat(path);
  }
  if (info.isSymbolicLink())
    throw new Error(`'${path}' is a symbolic link; commands are not run until it is a folder or absent`);
  return { path, directory: info.isDirectory() };
}

/**
 * What a sandboxed command must not see or change in the trees it gets (real paths): the
 * explicit protected paths (hidden, or read-only when `readable`: what the definition executes or
 * loads), `<root>/.raf`, every `.raf` and `.env*` found (hidden) and every `.git` found (read-only). Links named like them are followed to what they name.
 */
export async function sandboxProtection(
  roots: readonly string[],
  readable: readonly string[],
  index: ProtectionIndex,
): Promise<SandboxProtection> {
  const hidden: SandboxProtection['hidden'] = [];
  const readOnly: string[] = [];
  for (const root of roots) {
    const raf = await rafFolder(root);
    if (raf) hidden.push(raf);
  }
  for (const { real, readable: loaded } of index.explicit) {
    const info = await lstat(real).catch(() => undefined);
    // What the definition executes or loads is seen but never changed; a secret is not seen.
    if (info && loaded) readOnly.push(real);
    else if (info) hidden.push({ path: real, directory: info.isDirectory() });
  }
  let budget = SANDBOX_SCAN_LIMIT;
  let truncated = false;
  const pending = [...roots, ...readable];
  while (pending.length > 0) {
    const folder = pending.shift() as string;
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    budget -= entries.length;
    if (budget < 0) {
      truncated = true;
      break;
    }
    for (const entry of entries) {
      let path = join(folder, entry.name);
      const protection = protectionByName(entry.name);
      if (!protection) {
        if (entry.isDirectory() && !SKIPPED.has(entry.name)) pending.push(path);
        continue;
      }
      let directory = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        const target = await realpath(path).catch(() => undefined);
        if (!target) continue;
        path = target;
        directory = (await lstat(target)).isDirectory();
      }
      if (protection.kind === 'git') readOnly.push(path);
      else hidden.push({ path, directory });
    }
  }
  // A mask inside a hidden folder would need a mount point in an empty read-only tmpfs.
  const folders = hidden.filter((h) => h.directory).map((h) => h.path);
  const outermost = hidden.filter((h) => !folders.some((f) => f !== h.path && isInside(h.path, f)));
  const unique = [...new Map(outermost.map((h) => [h.path, h])).values()];
  return {
    hidden: unique,
    readOnly: [...new Set(readOnly)].filter((p) => !folders.some((f) => isInside(p, f))),
    truncated,
  };
}
