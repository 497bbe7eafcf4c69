import { closeSync, existsSync, openSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ITool } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  executeTool,
  makeWorkspaceFixture,
  type WorkspaceFixture,
  workspaceTools,
} from '../test-support/workspace-fixture.js';
import { LocalFsOperations } from '../workspace/operations/local-fs-operations.js';

// Arguments a hostile or confused model may send: each gets a clear tool failure or a correct
// answer, never a corrupted file, a misleading success or an exhausted process.

let fx: WorkspaceFixture;
let tools: Map<string, ITool>;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
  tools = workspaceTools(fx.root, 'AllowAll');
});
afterEach(() => fx.cleanup());

const call = (name: string, args: Record<string, unknown>) => executeTool(tools, name, args);

// Bytes that are not UTF-8 (Latin-1 `é`, a lone continuation byte, a truncated sequence).
const NOT_UTF8 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x80, 0x0a, 0x6f, 0x6c, 0x64, 0x0a, 0xc3]);

describe('reads', () => {
  it.runIf(existsSync('/proc/self/status'))(
    'read_file reads a file whose size the kernel reports as 0 (procfs) to its end',
    async () => {
      const result = await call('read_file', { path: '/proc/self/status' });
      expect(result.ok).toBe(true);
      const data = result.data as { content: string; total_lines: number };
      expect(data.content).toMatch(/^Name:.*\n/);
      expect(data.content).toMatch(/\nPid:\s+\d+/);
      expect(data.total_lines).toBeGreaterThan(5);
    },
  );

  it('a path over the name or path limit is refused in a short sentence', async () => {
    for (const path of ['n'.repeat(300), `${'d'.repeat(200)}/`.repeat(30)]) {
      const result = await call('read_file', { path });
      expect(result).toEqual({
        ok: false,
        error: 'the path is too long (a name over 255 bytes or a whole path over 4096 bytes)',
      });
    }
  });
});

describe('edits keep the bytes they do not replace', () => {
  it('edit_file leaves bytes that are not UTF-8 as they were', async () => {
    const file = join(fx.root, 'latin1.txt');
    await writeFile(file, NOT_UTF8);
    expect(await call('edit_file', { path: 'latin1.txt', old_str: 'old', new_str: 'new' })).toMatchObject({
      ok: true,
    });
    const expected = Buffer.from(NOT_UTF8);
    expected.write('new', NOT_UTF8.indexOf('old'), 'latin1');
    expect(await readFile(file)).toEqual(expected);
  });

  it('edit_file reports byte offsets of repeated matches in a non-UTF-8 file', async () => {
    await writeFile(join(fx.root, 'twice.bin'), Buffer.concat([NOT_UTF8, NOT_UTF8]));
    expect(await call('edit_file', { path: 'twice.bin', old_str: 'old', new_str: 'x' })).toEqual({
      ok: false,
      error:
        'old_str is not unique — found 2 occurrences (e.g. at byte offset 7, 19). Include more surrounding text.',
    });
  });

  it('apply_patch refuses a file that is not UTF-8 and leaves it untouched', async () => {
    const file = join(fx.root, 'latin1.txt');
    await writeFile(file, NOT_UTF8);
    const patch = '--- a/latin1.txt\n+++ b/latin1.txt\n@@ -3 +3 @@\n-old\n+new\n';
    expect(await call('apply_patch', { patch })).toEqual({
      ok: false,
      error: "'latin1.txt' is not UTF-8 text; apply_patch cannot change it without corrupting it",
    });
    expect(await readFile(file)).toEqual(NOT_UTF8);
  });

  it('apply_patch names the file it failed on, and undoes the files before it', async () => {
    const patch = [
      '--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1 +1 @@\n-alpha\n+beta\n',
      '--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1 @@\n+new\n',
      // A folder below a regular file cannot be created: this section fails.
      '--- /dev/null\n+++ b/src/a.txt/below.txt\n@@ -0,0 +1 @@\n+x\n',
    ].join('');
    expect(await call('apply_patch', { patch })).toEqual({
      ok: false,
      error: "Not a directory: 'src/a.txt/below.txt'",
    });
    expect(await readFile(join(fx.root, 'src', 'a.txt'), 'utf8')).toBe('alpha\nneedle inside\n');
    expect(existsSync(join(fx.root, 'created.txt'))).toBe(false);
  });

  it('apply_patch refuses a patch that changes one file in two sections', async () => {
    const file = join(fx.root, 'src', 'a.txt');
    const section = (to: string) => `--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1 +1 @@\n-alpha\n+${to}\n`;
    expect(await call('apply_patch', { patch: section('one') + section('two') })).toEqual({
      ok: false,
      error:
        "the patch changes 'src/a.txt' in more than one section; put all its hunks under one ---/+++ header",
    });
    // Two spellings of one file are one file.
    const other = '--- a/./src/a.txt\n+++ b/./src/a.txt\n@@ -2 +2 @@\n-needle inside\n+other\n';
    expect((await call('apply_patch', { patch: section('one') + other })).ok).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('alpha\nneedle inside\n');
  });
});

describe('read-only files', () => {
  it('write_file, edit_file and apply_patch refuse a read-only file (a rename would replace it)', async () => {
    const file = join(fx.root, 'ro.txt');
    await writeFile(file, 'keep\n');
    await chmod(file, 0o444);
    const patch = '--- a/ro.txt\n+++ b/ro.txt\n@@ -1 +1 @@\n-keep\n+lost\n';
    for (const [name, args] of [
      ['write_file', { path: 'ro.txt', content: 'lost' }],
      ['edit_file', { path: 'ro.txt', old_str: 'keep', new_str: 'lost' }],
      ['apply_patch', { patch }],
    ] as const) {
      expect(await call(name, args)).toEqual({ ok: false, error: "Permission denied: 'ro.txt'" });
    }
    expect(await readFile(file, 'utf8')).toBe('keep\n');
  });
});

describe('failures name the problem', () => {
  it('move_file of a folder into itself says so', async () => {
    expect(await call('move_file', { from: 'src', to: 'src/deep/src' })).toEqual({
      ok: false,
      error: "Cannot move 'src' into itself ('src/deep/src')",
    });
    expect(existsSync(join(fx.root, 'src', 'a.txt'))).toBe(true);
  });

  it('search_file names a NUL byte in the pattern or the include glob', async () => {
    expect(await call('search_file', { pattern: 'a', directory: '.', include: '*\0.txt' })).toEqual({
      ok: false,
      error: 'the include contains a NUL byte',
    });
    expect(await call('search_file', { pattern: 'a\0', directory: '.' })).toEqual({
      ok: false,
      error: 'the pattern contains a NUL byte',
    });
  });

  it('search_file and find_files name a pattern too long to hand to ripgrep or the glob matcher', async () => {
    const long = 'x'.repeat(200_000);
    expect(await call('search_file', { pattern: long, directory: '.' })).toEqual({
      ok: false,
      error: 'the pattern is 200000 characters long, over the 65536-character limit',
    });
    expect(await call('search_file', { pattern: 'a', directory: '.', include: long })).toEqual({
      ok: false,
      error: 'the include is 200000 characters long, over the 65536-character limit',
    });
    expect(await call('find_files', { pattern: long })).toEqual({
      ok: false,
      error: 'the pattern is 200000 characters long, over the 65536-character limit',
    });
  });

  it('a write below a regular file says it is not a directory (not that a link appeared)', async () => {
    expect(await call('write_file', { path: 'src/a.txt/x', content: 'x' })).toEqual({
      ok: false,
      error: "Not a directory: 'src/a.txt/x'",
    });
    expect(await call('make_directory', { path: 'src/a.txt/sub/deeper' })).toEqual({
      ok: false,
      error: "Not a directory: 'src/a.txt/sub/deeper'",
    });
    expect(await readFile(join(fx.root, 'src', 'a.txt'), 'utf8')).toBe('alpha\nneedle inside\n');
  });

  it('write_file and apply_patch refuse a path spelt as a folder (`logs/`) instead of creating a file', async () => {
    for (const path of ['logs/', 'logs/.', 'src/deep/..']) {
      expect(await call('write_file', { path, content: 'x' })).toEqual({
        ok: false,
        error: `'${path}' names a folder, not a file; give the file's name`,
      });
    }
    const patch = '--- /dev/null\n+++ b/logs/\n@@ -0,0 +1 @@\n+x\n';
    expect(await call('apply_patch', { patch })).toEqual({
      ok: false,
      error: "'logs/' names a folder, not a file",
    });
    expect(existsSync(join(fx.root, 'logs'))).toBe(false);
  });

  it('search_file on a FIFO says it is not a folder or a regular file', async () => {
    expect(await call('search_file', { pattern: 'a', directory: 'pipe' })).toEqual({
      ok: false,
      error: "'pipe' is not a folder or a regular file",
    });
  });
});

describe('list_files on a huge folder', () => {
  it('keeps memory bounded (entries are inspected in batches)', { timeout: 120_000 }, async () => {
    const folder = join(fx.root, 'many');
    await mkdir(folder);
    const count = 50_000;
    for (let i = 0; i < count; i += 1) closeSync(openSync(join(folder, `f${i}`), 'w'));
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 5);
    // One pending lstat per entry at once held about 2.7 KB of heap each (135 MB here).
    const entries = await new LocalFsOperations().list(folder).finally(() => clearInterval(sampler));
    expect(entries).toHaveLength(count);
    expect(peak - before).toBeLessThan(60 * 1024 * 1024);
  });
});

describe('names that are not UTF-8', () => {
  // Linux file systems take any bytes as a name (APFS and NTFS refuse these).
  it.runIf(process.platform === 'linux')('remove_path deletes a folder holding them', async () => {
    const folder = join(fx.root, 'archive');
    const bytes = (...parts: (string | number[])[]) =>
      Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    await mkdir(bytes(folder, '/', [0xc3]), { recursive: true });
    await writeFile(bytes(folder, '/', [0xff, 0xfe], '.txt'), 'latin-1 name');
    await writeFile(bytes(folder, '/', [0xc3], '/inner'), 'below a latin-1 folder');
    expect(await call('remove_path', { path: 'archive' })).toMatchObject({ ok: true });
    expect(existsSync(folder)).toBe(false);
  });
});
