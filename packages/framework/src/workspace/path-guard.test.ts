import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkspaceScope } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalFsOperations } from './operations/local-fs-operations.js';
import { type GuardFs, PathRejectedError, resolveInScope } from './path-guard.js';

let base: string;
let root: string;
let scope: WorkspaceScope;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'raf-guard-')));
  root = join(base, 'root');
  await mkdir(join(root, 'src', 'deep'), { recursive: true });
  await writeFile(join(root, 'src', 'a.txt'), 'a');
  await writeFile(join(root, '..test'), 'dots');
  for (const sibling of ['root2', 'root_backup', 'root.bak', "root'", 'root ', 'outside']) {
    await mkdir(join(base, sibling), { recursive: true });
    await writeFile(join(base, sibling, 'secret.txt'), 's');
  }
  await symlink(join(base, 'outside', 'secret.txt'), join(root, 'final-link'));
  await symlink(join(base, 'outside'), join(root, 'dir-link'));
  await symlink(join(base, 'outside', 'not-yet.txt'), join(root, 'dangling-out'));
  await symlink(join(root, 'src', 'a.txt'), join(root, 'chain-1'));
  await symlink(join(root, 'chain-1'), join(root, 'chain-2'));
  await symlink(join(root, 'loop-b'), join(root, 'loop-a'));
  await symlink(join(root, 'loop-a'), join(root, 'loop-b'));
  await symlink(root, join(base, 'root-link'));
  execFileSync('mkfifo', [join(root, 'pipe')]);
  scope = { root, name: 'ws', policy: 'ApproveOutside' };
});

afterAll(() => rm(base, { recursive: true, force: true }));

const where = async (path: string, s: WorkspaceScope = scope) => (await resolveInScope(s, path)).scope;

describe('path guard', () => {
  it('keeps relative paths, ".", and names like "..test" inside', async () => {
    expect(await where('src/a.txt')).toBe('workspace');
    expect(await where('.')).toBe('workspace');
    expect(await where('')).toBe('workspace');
    expect(await where('..test')).toBe('workspace');
    expect(await where('src/deep/../a.txt')).toBe('workspace');
    expect(await where('src/new-dir/new.txt')).toBe('workspace');
  });

  it.each(['root2', 'root_backup', 'root.bak', "root'", 'root '])(
    'treats the sibling "%s" as outside',
    async (sibling) => {
      expect(await where(join(base, sibling, 'secret.txt'))).toBe('outside_workspace');
      expect(await where(`../${sibling}/secret.txt`)).toBe('outside_workspace');
    },
  );

  it('resolves ".." in every position', async () => {
    expect(await where('../outside/secret.txt')).toBe('outside_workspace');
    expect(await where('src/../../outside/secret.txt')).toBe('outside_workspace');
    expect(await where('src/deep/../../..')).toBe('outside_workspace');
    expect(await where('/etc/passwd')).toBe('outside_workspace');
  });

  it('refuses NUL bytes and kernel aliases of other files', async () => {
    await expect(resolveInScope(scope, 'src/a.txt\0.png')).rejects.toThrow(PathRejectedError);
    await expect(resolveInScope(scope, '/proc/self/root/etc/passwd')).rejects.toThrow(/kernel alias/);
    await expect(resolveInScope(scope, '/dev/fd/0')).rejects.toThrow(/kernel alias/);
    await expect(resolveInScope(scope, '/proc/1/cwd')).rejects.toThrow(/kernel alias/);
    // The same views of each thread.
    for (const view of ['root/etc/passwd', 'cwd', 'fd/0'])
      await expect(resolveInScope(scope, `/proc/self/task/${process.pid}/${view}`)).rejects.toThrow(
        /kernel alias/,
      );
  });

  it('follows a final-component link and an intermediate directory link out of the root', async () => {
    const final = await resolveInScope(scope, 'final-link');
    expect(final).toMatchObject({
      scope: 'outside_workspace',
      real: join(base, 'outside', 'secret.txt'),
      exists: true,
    });
    expect(await where('dir-link/secret.txt')).toBe('outside_workspace');
    expect(await where('dir-link/new-file.txt')).toBe('outside_workspace');
    expect(await where('dir-link/new-dir/deeper/x.txt')).toBe('outside_workspace');
  });

  it('follows a dangling link to its outside target without creating it', async () => {
    const dangling = await resolveInScope(scope, 'dangling-out');
    expect(dangling).toMatchObject({
      scope: 'outside_workspace',
      real: join(base, 'outside', 'not-yet.txt'),
      exists: false,
    });
  });

  it('allows symlink chains that stay inside, and reports link loops as errors without hanging', async () => {
    expect(await resolveInScope(scope, 'chain-2')).toMatchObject({
      scope: 'workspace',
      real: join(root, 'src', 'a.txt'),
    });
    await expect(resolveInScope(scope, 'loop-a')).rejects.toThrow(/loop/);
    await expect(resolveInScope(scope, 'loop-a/child')).rejects.toThrow(/loop/);
  });

  it('accepts a symlinked root under both spellings', async () => {
    const linked: WorkspaceScope = { ...scope, root: join(base, 'root-link') };
    expect(await where('src/a.txt', linked)).toBe('workspace');
    expect(await where(join(root, 'src', 'a.txt'), linked)).toBe('workspace');
    expect(await where(join(base, 'root-link', 'src', 'a.txt'))).toBe('workspace');
    expect(await where('../root2/secret.txt', linked)).toBe('outside_workspace');
  });

  it('reports FIFOs and other special files so tools can refuse them', async () => {
    expect(await resolveInScope(scope, 'pipe')).toMatchObject({
      scope: 'workspace',
      kind: 'other',
      exists: true,
    });
    expect(await resolveInScope(scope, 'src')).toMatchObject({ kind: 'directory' });
    expect(await resolveInScope(scope, 'src/a.txt')).toMatchObject({ kind: 'file' });
  });

  it('treats extra roots like the main root', async () => {
    const multi: WorkspaceScope = { ...scope, roots: [join(base, 'root2')] };
    expect(await where(join(base, 'root2', 'secret.txt'), multi)).toBe('workspace');
    expect(await where(join(base, 'root_backup', 'secret.txt'), multi)).toBe('outside_workspace');
  });
});

describe('path guard races', () => {
  it('a link replaced by a folder between lstat and readlink is looked at again', async () => {
    const swapped = join(root, 'swapped');
    await symlink(join(base, 'outside'), swapped);
    const local = new LocalFsOperations();
    let raced = false;
    // The real disk, with the swap done at the worst moment: right after lstat saw the link.
    const fs: GuardFs = {
      realpath: (path) => local.realpath(path),
      readlink: (path) => local.readlink(path),
      lstat: async (path) => {
        const info = await local.lstat(path);
        if (path === swapped && !raced) {
          raced = true;
          await rm(swapped);
          await mkdir(swapped);
        }
        return info;
      },
    };
    const resolved = await resolveInScope(scope, 'swapped', fs);
    expect(raced).toBe(true);
    expect(resolved).toMatchObject({ real: swapped, scope: 'workspace', exists: true, kind: 'directory' });
  });

  it('an entry removed between lstat and realpath is missing, not an error', async () => {
    const vanishing = join(root, 'vanishing');
    await mkdir(vanishing);
    const local = new LocalFsOperations();
    let raced = false;
    const fs: GuardFs = {
      readlink: (path) => local.readlink(path),
      lstat: (path) => local.lstat(path),
      realpath: async (path) => {
        if (path === vanishing && !raced) {
          raced = true;
          await rm(vanishing, { recursive: true });
        }
        return local.realpath(path);
      },
    };
    const resolved = await resolveInScope(scope, 'vanishing', fs);
    expect(raced).toBe(true);
    expect(resolved).toMatchObject({ real: vanishing, scope: 'workspace', exists: false });
  });
});
