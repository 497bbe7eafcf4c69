import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResult } from '@raf/core';
import { exists, type WorkspaceFixture } from './workspace-fixture.js';

/** What a call does under a policy: run, ask for approval, or end as a tool error. */
export type Outcome = 'runs' | 'asks' | 'error';
export type PolicyName = 'allow' | 'approve' | 'deny';

export interface PathCase {
  name: string;
  tool: string;
  args(fx: WorkspaceFixture): Record<string, unknown>;
  /** `inside`: runs everywhere; `outside`: runs / asks / error; `refused`: error everywhere. */
  where: 'inside' | 'outside' | 'refused' | Record<PolicyName, Outcome>;
  /** Extra checks after the call (e.g. nothing was created outside). */
  verify?(fx: WorkspaceFixture, policy: PolicyName, result: ToolResult | undefined): void;
  /** Workspace root to use instead of `fx.root` (the symlinked-root case). */
  root?(fx: WorkspaceFixture): string;
  error?: RegExp;
}

const untouched = (path: (fx: WorkspaceFixture) => string) => (fx: WorkspaceFixture, policy: PolicyName) => {
  if (policy !== 'allow' && exists(path(fx)))
    throw new Error(`${path(fx)} was created outside the workspace`);
};

const sibling = (name: string): PathCase => ({
  name: `sibling prefix \`${name}\``,
  tool: 'read_file',
  args: (fx) => ({ path: join(fx.base, name, 'secret.txt') }),
  where: 'outside',
});

/** Every path-guard case of issue 4; the README's table lists them by `name`. */
export const PATH_CASES: PathCase[] = [
  { name: 'relative path inside', tool: 'read_file', args: () => ({ path: 'src/a.txt' }), where: 'inside' },
  { name: 'a name like `..test`', tool: 'read_file', args: () => ({ path: '..test' }), where: 'inside' },
  sibling('root2'),
  sibling('root_backup'),
  sibling('root.bak'),
  sibling("root'"),
  sibling('root '),
  {
    name: '`../` to a sibling',
    tool: 'read_file',
    args: () => ({ path: '../root2/secret.txt' }),
    where: 'outside',
  },
  {
    name: '`..` in the middle',
    tool: 'read_file',
    args: () => ({ path: 'src/../../outside/secret.txt' }),
    where: 'outside',
  },
  {
    name: '`..` at the end',
    tool: 'list_files',
    args: () => ({ path: 'src/deep/../../..' }),
    where: 'outside',
  },
  {
    name: '`..` that stays inside',
    tool: 'read_file',
    args: () => ({ path: 'src/deep/../a.txt' }),
    where: 'inside',
  },
  {
    name: 'absolute path outside',
    tool: 'read_file',
    args: () => ({ path: '/etc/hostname' }),
    where: 'outside',
  },
  {
    name: 'NUL byte',
    tool: 'read_file',
    args: () => ({ path: 'src/a.txt\0.png' }),
    where: 'refused',
    error: /NUL/,
  },
  {
    name: 'symlinked root, link spelling',
    tool: 'read_file',
    args: (fx) => ({ path: join(fx.rootLink, 'src', 'a.txt') }),
    root: (fx) => fx.rootLink,
    where: 'inside',
  },
  {
    name: 'symlinked root, real spelling',
    tool: 'read_file',
    args: (fx) => ({ path: join(fx.root, 'src', 'a.txt') }),
    root: (fx) => fx.rootLink,
    where: 'inside',
  },
  {
    name: 'final-component link to outside',
    tool: 'read_file',
    args: () => ({ path: 'final-link' }),
    where: 'outside',
  },
  {
    name: 'intermediate directory link (`link/file`)',
    tool: 'read_file',
    args: () => ({ path: 'dir-link/secret.txt' }),
    where: 'outside',
  },
  {
    name: 'write through a dangling link to outside',
    tool: 'write_file',
    args: () => ({ path: 'dangling-out', content: 'x' }),
    where: 'outside',
    verify: untouched((fx) => join(fx.outside, 'not-yet.txt')),
  },
  {
    name: '`write_file` through a linked parent',
    tool: 'write_file',
    args: () => ({ path: 'dir-link/new.txt', content: 'x' }),
    where: 'outside',
    verify: untouched((fx) => join(fx.outside, 'new.txt')),
  },
  {
    name: '`make_directory` through a linked parent',
    tool: 'make_directory',
    args: () => ({ path: 'dir-link/made/deeper' }),
    where: 'outside',
    verify: untouched((fx) => join(fx.outside, 'made')),
  },
  {
    name: 'symlink chain that stays inside',
    tool: 'read_file',
    args: () => ({ path: 'chain-2' }),
    where: 'inside',
  },
  {
    name: 'symlink loop',
    tool: 'read_file',
    args: () => ({ path: 'loop-a' }),
    where: 'refused',
    error: /loop/,
  },
  {
    name: '`list_files` does not follow links out',
    tool: 'list_files',
    args: () => ({ path: '.' }),
    where: 'inside',
    verify: (_fx, _p, result) => {
      const entries = ((result?.data ?? {}) as { entries: { name: string; type: string }[] }).entries;
      if (entries.find((e) => e.name === 'dir-link')?.type !== 'symlink')
        throw new Error('dir-link not shown as a link');
    },
  },
  {
    name: '`find_files` does not follow links out',
    tool: 'find_files',
    args: () => ({ pattern: '**/secret.txt' }),
    where: 'inside',
    verify: (_fx, _p, result) => {
      if (((result?.data ?? {}) as { count: number }).count !== 0)
        throw new Error('found a file behind a link');
    },
  },
  {
    name: '`search_file` does not follow links out',
    tool: 'search_file',
    args: () => ({ pattern: 'needle', directory: '.' }),
    where: 'inside',
    verify: (_fx, _p, result) => {
      const matches = ((result?.data ?? {}) as { matches: { file: string }[] }).matches;
      if (matches.length !== 1 || !matches[0]?.file.endsWith('a.txt'))
        throw new Error(JSON.stringify(matches));
    },
  },
  {
    name: '`/proc/self/root/…`',
    tool: 'read_file',
    args: () => ({ path: '/proc/self/root/etc/hostname' }),
    where: 'refused',
    error: /kernel alias/,
  },
  {
    name: '`/dev/fd/N`',
    tool: 'read_file',
    args: () => ({ path: '/dev/fd/0' }),
    where: 'refused',
    error: /kernel alias/,
  },
  {
    name: 'FIFO',
    tool: 'read_file',
    args: () => ({ path: 'pipe' }),
    where: 'refused',
    error: /not a regular file/,
  },
  {
    name: 'device behind a link',
    tool: 'read_file',
    args: () => ({ path: 'device-link' }),
    where: { allow: 'error', approve: 'asks', deny: 'error' },
  },
  {
    name: 'file over 512 KiB',
    tool: 'read_file',
    args: () => ({ path: 'big.txt' }),
    where: 'refused',
    error: /limit/,
  },
  {
    name: '`remove_path` on a link removes only the link',
    tool: 'remove_path',
    args: () => ({ path: 'final-link' }),
    where: 'inside',
    verify: (fx) => {
      if (exists(join(fx.root, 'final-link'))) throw new Error('link still there');
      if (readFileSync(join(fx.outside, 'secret.txt'), 'utf8') !== 'needle secret\n')
        throw new Error('target touched');
    },
  },
  {
    name: '`remove_path` refuses the root',
    tool: 'remove_path',
    args: () => ({ path: '.' }),
    where: 'refused',
    error: /critical/,
  },
  {
    name: '`move_file` to outside',
    tool: 'move_file',
    args: () => ({ from: 'src/a.txt', to: '../outside/moved.txt' }),
    where: 'outside',
    verify: untouched((fx) => join(fx.outside, 'moved.txt')),
  },
  {
    name: '`move_file` from outside',
    tool: 'move_file',
    args: () => ({ from: '../outside/secret.txt', to: 'src/stolen.txt' }),
    where: 'outside',
    verify: (fx, policy) => {
      if (policy !== 'allow' && !exists(join(fx.outside, 'secret.txt'))) throw new Error('moved anyway');
    },
  },
  {
    name: '`run_command` in the workspace',
    tool: 'run_command',
    args: () => ({ command: 'echo hi', working_dir: 'src' }),
    where: 'inside',
  },
  {
    name: '`working_dir` outside',
    tool: 'run_command',
    args: () => ({ command: 'pwd', working_dir: '../outside' }),
    where: 'outside',
  },
];
