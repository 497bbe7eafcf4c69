import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { scopeRoots, type WorkspaceScope } from '@raf/core';
import { PathRejectedError } from '../errors/tool-errors.js';
import { LocalFsOperations } from './operations/local-fs-operations.js';
import type { EntryInfo, FsOperations } from './operations/tool-operations.js';

/** The calls the guard needs; the tools pass their own backend's. */
export type GuardFs = Pick<FsOperations, 'lstat' | 'readlink' | 'realpath'>;
const LOCAL_FS: GuardFs = new LocalFsOperations();

/** Where a resolved path lies: inside a workspace root, or outside all of them. */
export type ScopeStatus = 'workspace' | 'outside_workspace';

export interface ResolvedPath {
  /** What the caller asked for. */
  requested: string;
  /**
   * The real location: every symlink followed (for a path that does not exist yet, its nearest
   * existing ancestor's real path plus the rest). This is the path to act on and to approve.
   */
  real: string;
  scope: ScopeStatus;
  /** Whether something (a file, directory, or other entry) exists there now. */
  exists: boolean;
  kind?: 'file' | 'directory' | 'symlink' | 'other';
}

export interface ResolveOptions {
  /**
   * Follow a link in the last component (default). `false` acts on the link itself: removing or
   * moving a link never touches its target.
   */
  followFinalLink?: boolean;
}

/** Input the guard refuses whatever the policy: the tool answers with this message. */
export { PathRejectedError };

// Kernel views that can name any file through a harmless-looking path (each thread has the same
// views under `task/<tid>/`).
const ESCAPE_HATCHES = [
  /^\/proc\/(self|thread-self|\d+)\/(task\/\d+\/)?(root|cwd|fd|exe|map_files)(\/|$)/,
  /^\/dev\/fd(\/|$)/,
  /^\/dev\/std(in|out|err)$/,
];
const MAX_LINK_HOPS = 40;

/** Whether `path` is `root` or below it, on a path-separator boundary (`/a/bc` is not inside `/a/b`). */
export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function realRoots(scope: WorkspaceScope, fs: GuardFs): Promise<string[]> {
  // A root that cannot be resolved (missing) keeps its lexical spelling: nothing is inside it then.
  return Promise.all(scopeRoots(scope).map(async (root) => fs.realpath(root).catch(() => resolve(root))));
}

/**
 * Follows a path to its real location without creating anything: existing prefixes go through
 * `realpath`, a dangling final link is followed by hand (so a write can never create its target
 * outside), and the missing rest is appended. Loops and over-long chains are refused.
 */
async function realLocation(
  fs: GuardFs,
  absolute: string,
  hops = 0,
): Promise<{ real: string; exists: boolean; kind?: ResolvedPath['kind'] }> {
  if (hops > MAX_LINK_HOPS)
    throw new PathRejectedError(`too many symbolic links (a loop?) resolving '${absolute}'`);
  let stat: EntryInfo;
  try {
    stat = await fs.lstat(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      const parent = dirname(absolute);
      if (parent === absolute) return { real: absolute, exists: false };
      const above = await realLocation(fs, parent, hops);
      return { real: join(above.real, absolute.slice(parent.length)), exists: false };
    }
    if (code === 'ELOOP') throw new PathRejectedError(`symbolic link loop resolving '${absolute}'`);
    // Named, and without echoing the path (twice, in Node's message): it may be kilobytes long.
    if (code === 'ENAMETOOLONG')
      throw new PathRejectedError(
        'the path is too long (a name over 255 bytes or a whole path over 4096 bytes)',
      );
    throw new PathRejectedError(`cannot resolve '${absolute}': ${(error as Error).message}`);
  }
  if (stat.kind === 'symlink') {
    let target: string;
    try {
      target = await fs.readlink(absolute);
    } catch (error) {
      // The link was replaced (EINVAL: now a folder or file) or removed since lstat: look again,
      // rather than hand the model Node's raw readlink error.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EINVAL' || code === 'ENOENT') return realLocation(fs, absolute, hops + 1);
      throw new PathRejectedError(`cannot resolve '${absolute}': ${(error as Error).message}`);
    }
    const parentReal = (await realLocation(fs, dirname(absolute), hops + 1)).real;
    return realLocation(fs, isAbsolute(target) ? target : resolve(parentReal, target), hops + 1);
  }
  try {
    const real = await fs.realpath(absolute);
    const kind = stat.kind === 'directory' || stat.kind === 'file' ? stat.kind : 'other';
    return { real, exists: true, kind };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new PathRejectedError(`symbolic link loop resolving '${absolute}'`);
    // Removed (or a folder on the way replaced) since lstat: look again, as for readlink.
    if (code === 'ENOENT' || code === 'ENOTDIR') return realLocation(fs, absolute, hops + 1);
    throw new PathRejectedError(`cannot resolve '${absolute}': ${(error as Error).message}`);
  }
}

/**
 * The real location of an absolute path (every link followed; for a path not there yet, its
 * nearest existing ancestor's real path plus the rest), without any containment check.
 */
export async function realPathOf(absolute: string, fs: GuardFs = LOCAL_FS): Promise<string> {
  return (await realLocation(fs, resolve(absolute))).real;
}

/** Like `realLocation`, but a link in the last component is the answer itself. */
async function linkLocation(
  fs: GuardFs,
  absolute: string,
): Promise<Awaited<ReturnType<typeof realLocation>>> {
  const info = await fs.lstat(absolute).catch(() => undefined);
  if (info?.kind !== 'symlink') return realLocation(fs, absolute);
  const parent = dirname(absolute);
  return {
    real: join((await realLocation(fs, parent)).real, absolute.slice(parent.length)),
    exists: true,
    kind: 'symlink',
  };
}

/**
 * Resolves a tool's path argument against a workspace and says whether it lies inside. Relative
 * paths resolve against the main root; `..` is resolved lexically first; containment is checked on
 * a path-separator boundary against the real (symlink-free) root, so `root2`, `root_backup`,
 * `root'` and `root ` are outside, while names like `..test` stay inside.
 */
export async function resolveInScope(
  scope: WorkspaceScope,
  requested: string,
  fs: GuardFs = LOCAL_FS,
  options: ResolveOptions = {},
): Promise<ResolvedPath> {
  if (typeof requested !== 'string') throw new PathRejectedError('the path must be a string');
  if (requested.includes('\0')) throw new PathRejectedError('the path contains a NUL byte');
  const absolute = resolve(scope.root, requested === '' ? '.' : requested);
  for (const hatch of ESCAPE_HATCHES) {
    if (hatch.test(absolute))
      throw new PathRejectedError(`'${requested}' names a kernel alias of another file; use the real path`);
  }
  const location =
    options.followFinalLink === false ? await linkLocation(fs, absolute) : await realLocation(fs, absolute);
  for (const hatch of ESCAPE_HATCHES) {
    if (hatch.test(location.real))
      throw new PathRejectedError(`'${requested}' resolves to a kernel alias of another file`);
  }
  const roots = await realRoots(scope, fs);
  const inside = roots.some((root) => isInside(location.real, root));
  const result: ResolvedPath = {
    requested,
    real: location.real,
    scope: inside ? 'workspace' : 'outside_workspace',
    exists: location.exists,
  };
  if (location.kind) result.kind = location.kind;
  return result;
}
