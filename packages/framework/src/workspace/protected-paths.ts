import { readdir, realpath } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { type ProtectedPath, type ScopePolicy, scopeRoots, type WorkspaceScope } from '@raf/core';
import { type GuardFs, isInside, realPathOf } from './path-guard.js';

/**
 * Why a path is protected. `secret` paths (the agent definition file, the sessions folder, `.raf/`,
 * `.env*`) are neither read nor written by the file tools; `loaded` paths (what the definition
 * executes or loads: a stdio MCP server's script, a spec file, skills, the memory bundle, worker
 * modules) are read freely but written only with approval under `allow` and never under
 * `approve` or `deny`, like the agent file; `git` paths (every `.git` folder or file at any depth and everything in it) are
 * read freely but written only with approval (`approve`) or never (`deny`).
 */
export interface Protection {
  reason: string;
  kind: 'secret' | 'loaded' | 'git';
}

/** What happens to a call on a protected path under a policy. */
export type ProtectionDecision = 'allowed' | 'ask' | 'refused';

const ENV_FILE = /^\.env(\..*)?$/i;
const SECRET_DIR = '.raf';
/** Reading a folder this large for protected entries (before removing or moving it) stops here. */
export const PROTECTED_SCAN_LIMIT = 50_000;

/** The built-in rules, by the names on a real (symlink-free) path. */
export function protectionByName(real: string): Protection | undefined {
  const parts = real.split(sep).filter((p) => p !== '');
  let git = false;
  for (const name of parts) {
    const part = name.toLowerCase();
    // A secret wins over `.git`: `.git/.env` stays unreadable.
    if (part === SECRET_DIR) return { reason: '.raf', kind: 'secret' };
    if (ENV_FILE.test(part)) return { reason: '.env', kind: 'secret' };
    // Anything in a `.git` folder, or a `.git` file, at any depth: not only hooks and config run
    // code at the user's next `git status`; `commondir`, `gitdir`, `worktrees/*`, `modules/*`
    // or a `sub/.git` file can each point git at a planted config (`core.fsmonitor`).
    if (part === '.git') git = true;
  }
  return git ? { reason: '.git', kind: 'git' } : undefined;
}

/** What a check needs, gathered once per call: the real roots and explicit protected paths. */
export interface ProtectionIndex {
  roots: string[];
  /** Secret entries first: a path both secret and loaded is judged as a secret. */
  explicit: { real: string; reason: string; readable: boolean }[];
}

/** Reads the scope's roots and explicit protected paths at their real locations. */
export async function protectionIndex(scope: WorkspaceScope, fs: GuardFs): Promise<ProtectionIndex> {
  const listed: readonly ProtectedPath[] = scope.protectedPaths ?? [];
  const [roots, explicit] = await Promise.all([
    Promise.all(scopeRoots(scope).map((root) => fs.realpath(root).catch(() => root))),
    Promise.all(
      listed.map(async ({ path, reason, readable }) => ({
        // A path not there yet: its nearest existing ancestor's real path plus the rest.
        real: await realPathOf(resolve(scope.root, path), fs).catch(() => path),
        reason,
        readable: readable === true,
      })),
    ),
  ]);
  return { roots, explicit: [...explicit.filter((e) => !e.readable), ...explicit.filter((e) => e.readable)] };
}

/**
 * Whether a real path is protected. The name rules apply below the root that holds the path (a
 * workspace kept inside some `.raf/` folder is not protected as a whole), or to the whole path
 * outside the roots. A write also counts when the target holds an explicit protected path
 * (moving or removing the folder of `agent.yaml`).
 */
export function protectionOf(
  real: string,
  access: 'read' | 'write',
  index: ProtectionIndex,
): Protection | undefined {
  const root = index.roots.find((r) => isInside(real, r));
  const named = protectionByName(root ? real.slice(root.length) : real);
  if (named) return named;
  for (const entry of index.explicit) {
    if (isInside(real, entry.real) || (access === 'write' && isInside(entry.real, real)))
      return { reason: entry.reason, kind: entry.readable ? 'loaded' : 'secret' };
  }
  return undefined;
}

/** The first protected entry inside a folder (links not followed), for removals and moves. */
export async function protectionInside(directory: string): Promise<Protection | undefined> {
  let budget = PROTECTED_SCAN_LIMIT;
  const pending = [directory];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    budget -= entries.length;
    if (budget < 0) return { reason: `over ${PROTECTED_SCAN_LIMIT} entries to check`, kind: 'secret' };
    for (const entry of entries) {
      const found = protectionByName(join(folder.slice(directory.length), entry.name));
      if (found) return found;
      if (entry.isDirectory()) pending.push(join(folder, entry.name));
    }
  }
  return undefined;
}

/** Folders a command's folder is not searched in (as the sandbox: too large, not where secrets are kept). */
const UNSEARCHED = new Set(['node_modules']);

/** A path the file tools refuse to read, found in a folder a command is given. */
export interface UnreadableEntry {
  path: string;
  reason: string;
}

/**
 * The first path in a folder (a real path) that the file tools refuse to read: an explicit
 * secret entry below it (the agent file, the sessions), a `.raf` or `.env*` (links not followed
 * into folders; a link to such a path counts), or, past `PROTECTED_SCAN_LIMIT` entries, the
 * folder itself. A command given the folder (`grep -r`, `tar`, `find`) may read all of it.
 */
export async function unreadableInside(
  directory: string,
  index: ProtectionIndex,
): Promise<UnreadableEntry | undefined> {
  for (const entry of index.explicit) {
    // Listed whether it exists yet or not: the sessions folder appears during the run.
    if (!entry.readable && isInside(entry.real, directory)) return { path: entry.real, reason: entry.reason };
  }
  const secret = (path: string) => {
    const found = protectionOf(path, 'read', index);
    return found?.kind === 'secret' ? found : undefined;
  };
  let budget = PROTECTED_SCAN_LIMIT;
  const pending = [directory];
  while (pending.length > 0) {
    const folder = pending.shift() as string;
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    budget -= entries.length;
    if (budget < 0) return { path: directory, reason: `over ${PROTECTED_SCAN_LIMIT} entries to check` };
    for (const entry of entries) {
      const path = join(folder, entry.name);
      const named = protectionByName(entry.name);
      if (named?.kind === 'secret') return { path, reason: named.reason };
      if (entry.isSymbolicLink()) {
        const target = await realpath(path).catch(() => undefined);
        const found = target ? secret(target) : undefined;
        if (target && found) return { path, reason: found.reason };
        const held = target && index.explicit.find((e) => !e.readable && isInside(e.real, target));
        if (held) return { path: held.real, reason: held.reason };
      } else if (entry.isDirectory() && !UNSEARCHED.has(entry.name)) pending.push(path);
    }
  }
  return undefined;
}

/** What a policy does with a call that reads or writes a protected path. */
export function protectionDecision(
  protection: Protection,
  access: 'read' | 'write',
  policy: ScopePolicy,
): ProtectionDecision {
  if (protection.kind === 'secret' || protection.kind === 'loaded') {
    if (access === 'read') return protection.kind === 'secret' ? 'refused' : 'allowed';
    return policy === 'AllowAll' ? 'ask' : 'refused';
  }
  if (access === 'read') return 'allowed';
  return policy === 'DenyOutside' ? 'refused' : policy === 'ApproveOutside' ? 'ask' : 'allowed';
}

/** Whether the file tools may read a path (a search keeps only such results). */
export function isReadable(path: string, index: ProtectionIndex, policy: ScopePolicy): boolean {
  const protection = protectionOf(path, 'read', index);
  return !protection || protectionDecision(protection, 'read', policy) === 'allowed';
}

/** One line per protection, for `explain` and the README. */
export interface ProtectedPathRule {
  /** An absolute path, or a pattern under each root (`**\/.env`). */
  path: string;
  reason: string;
  reads: 'refused' | 'allowed';
  writes: ProtectionDecision;
}

/** The protected paths of a workspace and what its policy does with them. */
export function protectedPathRules(scope: WorkspaceScope): ProtectedPathRule[] {
  const rule = (path: string, protection: Protection): ProtectedPathRule => ({
    path,
    reason: protection.reason,
    reads: protectionDecision(protection, 'read', scope.policy) === 'refused' ? 'refused' : 'allowed',
    writes: protectionDecision(protection, 'write', scope.policy),
  });
  const secret = (reason: string): Protection => ({ reason, kind: 'secret' });
  const git: Protection = { reason: '.git', kind: 'git' };
  return [
    ...(scope.protectedPaths ?? []).map((p) =>
      rule(p.path, p.readable ? { reason: p.reason, kind: 'loaded' } : secret(p.reason)),
    ),
    rule('**/.raf/', secret('.raf')),
    rule('**/.env', secret('.env')),
    rule('**/.env.*', secret('.env')),
    rule('**/.git', git),
    rule('**/.git/**', git),
  ];
}
