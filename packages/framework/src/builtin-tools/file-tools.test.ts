import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ITool, ToolResult } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  executeTool,
  makeWorkspaceFixture,
  type WorkspaceFixture,
  workspaceTools,
} from '../test-support/workspace-fixture.js';

let fx: WorkspaceFixture;
let tools: Map<string, ITool>;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
  tools = workspaceTools(fx.root, 'AllowAll');
});
afterEach(() => fx.cleanup());

const call = (name: string, args: Record<string, unknown>) => executeTool(tools, name, args);
const data = (r: ToolResult) => r.data as Record<string, unknown>;

describe('read_file', () => {
  it('returns lines by offset and limit with the upstream result shape', async () => {
    await writeFile(join(fx.root, 'lines.txt'), 'one\ntwo\nthree\nfour\n');
    expect(await call('read_file', { path: 'lines.txt', offset: 2, limit: 2 })).toEqual({
      ok: true,
      data: {
        path: join(fx.root, 'lines.txt'),
        content: 'two\nthree\n[truncated — use offset/limit to read more]',
        total_lines: 4,
        start_line: 2,
        end_line: 3,
        truncated: true,
        scope: 'workspace',
      },
    });
    expect(data(await call('read_file', { path: 'lines.txt' }))).toMatchObject({
      content: 'one\ntwo\nthree\nfour',
      truncated: false,
    });
  });

  it('cuts lines over 2000 characters and refuses binary files and folders', async () => {
    await writeFile(join(fx.root, 'long.txt'), `${'y'.repeat(2500)}\n`);
    expect(data(await call('read_file', { path: 'long.txt' })).content).toBe(
      `${'y'.repeat(2000)} [truncated]`,
    );
    await writeFile(join(fx.root, 'bin.dat'), Buffer.from([1, 0, 2]));
    expect(await call('read_file', { path: 'bin.dat' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/binary/),
    });
    expect(await call('read_file', { path: 'src' })).toMatchObject({
      ok: false,
      error: "'src' is not a regular file",
    });
    expect(await call('read_file', { path: 'missing.txt' })).toMatchObject({
      ok: false,
      error: "No such file: 'missing.txt'",
    });
  });
});

describe('write_file and edit_file', () => {
  it('writes atomically, creating parents, and keeps an existing file mode', async () => {
    expect(await call('write_file', { path: 'new/deep/f.txt', content: 'héllo' })).toEqual({
      ok: true,
      data: { path: join(fx.root, 'new', 'deep', 'f.txt'), bytes_written: 6, scope: 'workspace' },
    });
    await writeFile(join(fx.root, 'script.sh'), 'old', { mode: 0o755 });
    await call('write_file', { path: 'script.sh', content: 'new' });
    expect((await stat(join(fx.root, 'script.sh'))).mode & 0o777).toBe(0o755);
    expect(await readFile(join(fx.root, 'script.sh'), 'utf8')).toBe('new');
  });

  it('refuses content over 1,000,000 bytes', async () => {
    expect(await call('write_file', { path: 'x', content: 'a'.repeat(1_000_001) })).toMatchObject({
      ok: false,
      error: 'content is 1000001 bytes, over the 1000000-byte limit',
    });
  });

  it('replaces exactly one occurrence and explains the upstream failures', async () => {
    await writeFile(join(fx.root, 'e.txt'), 'a b a b');
    expect(await call('edit_file', { path: 'e.txt', old_str: '', new_str: 'x' })).toMatchObject({
      error: 'old_str must not be empty',
    });
    expect(await call('edit_file', { path: 'e.txt', old_str: 'zzz', new_str: 'x' })).toMatchObject({
      error: expect.stringMatching(/^old_str not found in the file\. Make sure you copied the exact text/),
    });
    expect(await call('edit_file', { path: 'e.txt', old_str: 'a', new_str: 'x' })).toMatchObject({
      error: expect.stringMatching(
        /^old_str is not unique — found 2 occurrences \(e\.g\. at byte offset 0, 4\)/,
      ),
    });
    expect(await call('edit_file', { path: 'e.txt', old_str: 'a b a', new_str: 'c' })).toEqual({
      ok: true,
      data: { path: join(fx.root, 'e.txt'), replaced: true, scope: 'workspace' },
    });
    expect(await readFile(join(fx.root, 'e.txt'), 'utf8')).toBe('c b');
  });
});

describe('list_files, inspect_file, make_directory', () => {
  it('lists folders first, then by name, with type and size', async () => {
    const listed = data(await call('list_files', { path: 'src' }));
    expect(listed).toMatchObject({
      count: 2,
      entries: [
        { name: 'deep', type: 'dir' },
        { name: 'a.txt', type: 'file', size: 20 },
      ],
    });
  });

  it('inspects with RFC 3339 whole-second times', async () => {
    const info = data(await call('inspect_file', { path: 'src/a.txt' }));
    expect(info).toMatchObject({ type: 'file', size: 20, readonly: false, scope: 'workspace' });
    expect(info.modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('creates folders like mkdir -p and says when one existed', async () => {
    expect(data(await call('make_directory', { path: 'a/b/c' }))).toMatchObject({ created: true });
    expect(data(await call('make_directory', { path: 'a/b/c' }))).toMatchObject({ created: false });
    expect(await call('make_directory', { path: 'src/a.txt' })).toMatchObject({ ok: false });
  });
});

describe('remove_path and move_file', () => {
  it('removes folders recursively but never the root, a parent of it, or /', async () => {
    await mkdir(join(fx.root, 'gone', 'inner'), { recursive: true });
    expect(data(await call('remove_path', { path: 'gone' }))).toMatchObject({ deleted: true });
    for (const path of ['.', fx.root, fx.base, '/']) {
      expect(await call('remove_path', { path })).toMatchObject({
        ok: false,
        error: 'Refusing to delete critical path',
      });
    }
  });

  it('moves, refuses an existing destination, and creates missing parents', async () => {
    expect(await call('move_file', { from: 'src/a.txt', to: '..test' })).toMatchObject({
      ok: false,
      error: 'Destination already exists',
    });
    expect(await call('move_file', { from: 'src/a.txt', to: 'moved/here/a.txt' })).toEqual({
      ok: true,
      data: {
        from: join(fx.root, 'src', 'a.txt'),
        to: join(fx.root, 'moved', 'here', 'a.txt'),
        moved: true,
        scope: 'workspace',
      },
    });
    expect(await call('move_file', { from: 'src', to: 'src2' })).toMatchObject({ ok: true });
  });
});

describe('apply_patch', () => {
  const patch = [
    '--- a/src/a.txt',
    '+++ b/src/a.txt',
    '@@ -1,2 +1,2 @@',
    '-alpha',
    '+ALPHA',
    ' needle inside',
    '--- /dev/null',
    '+++ b/created.txt',
    '@@ -0,0 +1 @@',
    '+fresh',
    '',
  ].join('\n');

  it('applies a multi-file diff', async () => {
    expect(await call('apply_patch', { patch })).toMatchObject({ ok: true, data: { applied: true } });
    expect(await readFile(join(fx.root, 'src', 'a.txt'), 'utf8')).toBe('ALPHA\nneedle inside\n');
    expect(await readFile(join(fx.root, 'created.txt'), 'utf8')).toBe('fresh\n');
  });

  it('changes nothing when one file does not apply', async () => {
    const bad = patch.replace(' needle inside', ' not the context');
    expect(await call('apply_patch', { patch: bad })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/does not apply/),
    });
    expect(await readFile(join(fx.root, 'src', 'a.txt'), 'utf8')).toBe('alpha\nneedle inside\n');
    await expect(stat(join(fx.root, 'created.txt'))).rejects.toThrow();
  });

  it('is gated per file under approve and names every target', async () => {
    const gated = workspaceTools(fx.root, 'ApproveOutside').get('apply_patch')!;
    expect(await gated.requiresApproval?.({ patch })).toBe(false);
    const outside = patch.replace('+++ b/created.txt', '+++ b/../outside/x.txt');
    expect(await gated.requiresApproval?.({ patch: outside })).toBe(true);
    expect(await gated.resolveTarget?.({ patch: outside })).toBe(
      `${join(fx.root, 'src', 'a.txt')} -> ${join(fx.outside, 'x.txt')}`,
    );
  });
});
