import { lstat, readdir, readlink } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { isInside } from '../path-guard.js';
import type { ProcessRequest, SandboxRequest } from './tool-operations.js';

/** The system's program folders, mounted read-only (or recreated as links on a merged-/usr system). */
const SYSTEM_DIRECTORIES = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** Secrets in `/etc` even when a sloppy mode lets others read them. */
const ETC_SECRETS = [/^shadow-?$/, /^gshadow-?$/, /^sudoers/, /^ssh\/.*_key/, /^ssl\/private$/];
/** Reading `/etc` for secrets to hide stops after this many entries. */
const ETC_SCAN_LIMIT = 20_000;

/** Hides an existing path: an empty read-only folder over a folder, an unreadable node over a file. */
export function maskArguments(path: string, directory: boolean): string[] {
  // /dev/null bound without device access (bubblewrap mounts it `nodev`): opening it fails.
  return directory ? ['--tmpfs', path, '--remount-ro', path] : ['--ro-bind', '/dev/null', path];
}

/** `/etc` entries to hide: the named secrets and anything other users may not read. */
async function etcSecrets(): Promise<{ path: string; directory: boolean }[]> {
  const hidden: { path: string; directory: boolean }[] = [];
  const pending = ['/etc'];
  let budget = ETC_SCAN_LIMIT;
  while (pending.length > 0 && budget > 0) {
    const folder = pending.shift() as string;
    const names = await readdir(folder).catch(() => [] as string[]);
    budget -= names.length;
    for (const name of names) {
      const path = join(folder, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info || info.isSymbolicLink()) continue;
      const relative = path.slice('/etc/'.length);
      const directory = info.isDirectory();
      const unreadable = directory ? (info.mode & 0o005) !== 0o005 : (info.mode & 0o004) === 0;
      if (unreadable || ETC_SECRETS.some((pattern) => pattern.test(relative))) {
        if (directory || info.isFile()) hidden.push({ path, directory });
      } else if (directory) {
        pending.push(path);
      }
    }
  }
  return hidden;
}

async function systemArguments(): Promise<string[]> {
  const args: string[] = [];
  for (const path of SYSTEM_DIRECTORIES) {
    const info = await lstat(path).catch(() => undefined);
    if (info?.isSymbolicLink()) args.push('--symlink', await readlink(path), path);
    else if (info?.isDirectory()) args.push('--ro-bind', path, path);
  }
  if ((await lstat('/etc').catch(() => undefined))?.isDirectory()) {
    args.push('--ro-bind', '/etc', '/etc');
    for (const { path, directory } of await etcSecrets()) args.push(...maskArguments(path, directory));
  }
  return args;
}

let system: Promise<string[]> | undefined;

/** The read-only system mounts of every sandbox, read once per process (the host's layout). */
export function systemMountArguments(): Promise<string[]> {
  system ??= systemArguments();
  return system;
}

/**
 * The folders between a writable root and each protected path in it, outermost first. Each is
 * bound onto itself (read-write, as before) only to make it a mount point, which cannot be
 * renamed or removed: otherwise `mv srv srv2 && mkdir srv` would move a read-only
 * `srv/server.mjs` (or a hidden `sub/agent.yaml`) aside with its mount, and the command would
 * write a new one at the path `raf` loads next time.
 */
export function pinnedFolders(paths: readonly string[], roots: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    const root = roots.filter((r) => isInside(path, r)).sort((a, b) => b.length - a.length)[0];
    if (root === undefined) continue;
    let folder = dirname(path);
    const chain: string[] = [];
    while (folder !== root && isInside(folder, root) && folder !== dirname(folder)) {
      chain.push(folder);
      folder = dirname(folder);
    }
    for (const f of chain) folders.add(f);
  }
  return [...folders].sort((a, b) => a.split(sep).length - b.split(sep).length || a.localeCompare(b));
}

/**
 * bubblewrap arguments for a confined command: only the system's program folders and `/etc`
 * (secrets hidden) read-only, `readable` paths read-only, the roots read-write with `.git` and
 * what the definition loads read-only and protected paths hidden (the folders above each pinned), a private `/tmp`, a minimal `/dev`, `/proc`; no home
 * folder, `/run` or anything else. No capabilities (even as root), its own user (when the kernel
 * allows), PID, IPC, UTS and network namespaces (network kept only when asked), its own session,
 * killed with its parent.
 */
export function bubblewrapArguments(
  request: Pick<ProcessRequest, 'cwd'>,
  sandbox: SandboxRequest,
  options: { systemMounts: readonly string[]; userNamespace: boolean },
): string[] {
  const args = [...options.systemMounts, '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  const readable = sandbox.readable ?? [];
  for (const path of readable) args.push('--ro-bind', path, path);
  for (const root of sandbox.writableRoots) args.push('--bind', root, root);
  const mounted = [...readable, ...sandbox.writableRoots];
  const readOnly = (sandbox.readOnly ?? []).filter((path) => mounted.some((m) => isInside(path, m)));
  const hidden = (sandbox.hidden ?? []).filter(({ path }) => mounted.some((m) => isInside(path, m)));
  for (const folder of pinnedFolders([...readOnly, ...hidden.map((h) => h.path)], sandbox.writableRoots))
    args.push('--bind', folder, folder);
  for (const path of readOnly) args.push('--ro-bind', path, path);
  for (const { path, directory } of hidden) args.push(...maskArguments(path, directory));
  if (options.userNamespace) args.push('--unshare-user');
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (!sandbox.network) args.push('--unshare-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--chdir', request.cwd);
  return args;
}
