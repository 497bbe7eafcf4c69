import { execFileSync, spawnSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ITool, ToolResult } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SuperBrainContextProvider } from './super-brain-provider.js';

let base: string;
let bundle: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'raf-hostile-brain-'));
  bundle = join(base, 'logs', 'super-brain');
  outside = join(base, 'outside');
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, 'secret.md'), '# secret\n\nthe launch code is zebra-42\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function toolsOf(directory: string): Promise<{ tools: Map<string, ITool>; warnings: string[] }> {
  const provider = new SuperBrainContextProvider({ directory, consolidationInterval: 0 });
  const result = await provider.onInvoking();
  return {
    tools: new Map((result.tools ?? []).map((t) => [t.name, t])),
    warnings: result.warnings ?? [],
  };
}

async function call(
  tools: Map<string, ITool>,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const tool = tools.get(name);
  if (!tool) throw new Error(`Tool '${name}' not found`);
  return tool.execute(args, { signal: AbortSignal.timeout(10_000), callId: name });
}

describe('a memory bundle with links a hostile model planted', () => {
  it('memory_save refuses a linked folder: nothing is written outside the bundle', async () => {
    await toolsOf(bundle); // seeds the bundle
    await symlink(outside, join(bundle, 'assets', 'evil'));
    const { tools } = await toolsOf(bundle);
    const saved = await call(tools, 'memory_save', { topic: 'evil/general/notes', content: 'planted fact' });
    expect(saved.ok).toBe(false);
    expect(saved.error).toMatch(/symbolic link/);
    expect((await readdir(outside)).sort()).toEqual(['secret.md']);
  });

  it('memory_save refuses a linked page: the outside file is not copied in; recall and read_skill_resource never show it', async () => {
    await toolsOf(bundle);
    await rm(join(bundle, 'references', 'USER.md'));
    await symlink(join(outside, 'secret.md'), join(bundle, 'references', 'USER.md'));
    await symlink(join(outside, 'secret.md'), join(bundle, 'assets', 'leak.md'));
    const { tools } = await toolsOf(bundle);
    const saved = await call(tools, 'memory_save', { topic: 'user', content: 'The user is called Ada.' });
    expect(saved.ok).toBe(false);
    expect(saved.error).toMatch(/symbolic link/);
    // The link is still a link (not replaced by a copy of its target), the target unchanged.
    expect((await lstat(join(bundle, 'references', 'USER.md'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(outside, 'secret.md'), 'utf8')).not.toContain('Ada');
    const recalled = await call(tools, 'memory_recall', { query: 'launch code zebra' });
    expect(recalled.ok).toBe(true);
    expect(JSON.stringify((recalled.data as { hits: unknown[] }).hits)).not.toContain('zebra');
    for (const resource_path of ['references/USER.md', 'assets/leak.md']) {
      const read = await call(tools, 'read_skill_resource', { skill_name: 'super-brain', resource_path });
      expect(read.ok).toBe(false);
      expect(JSON.stringify(read)).not.toContain('zebra');
    }
  });

  it('a FIFO as a page neither hangs memory_save nor memory_recall', async () => {
    await toolsOf(bundle);
    await rm(join(bundle, 'references', 'USER.md'));
    execFileSync('mkfifo', [join(bundle, 'references', 'USER.md')]);
    execFileSync('mkfifo', [join(bundle, 'assets', 'pipe.md')]);
    const { tools } = await toolsOf(bundle);
    const started = Date.now();
    const saved = await call(tools, 'memory_save', { topic: 'user', content: 'The user is called Ada.' });
    expect(saved.ok).toBe(false);
    expect(saved.error).toMatch(/not a regular file/);
    expect((await call(tools, 'memory_recall', { query: 'Ada' })).ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

/** A tmpfs of `size` mounted at a fresh folder (root only), or undefined where that is not allowed. */
function mountTmpfs(size: string): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const at = execFileSync('mktemp', ['-d', join(tmpdir(), 'raf-tmpfs-XXXXXX')], { encoding: 'utf8' }).trim();
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', at]);
  return mounted.status === 0 ? at : undefined;
}
const canMount = (() => {
  const at = mountTmpfs('64k');
  if (!at) return false;
  spawnSync('umount', [at]);
  return true;
})();

describe.runIf(canMount)('memory on a faulty disk (a real tmpfs)', () => {
  let mounted: string | undefined;
  afterEach(() => {
    if (mounted) spawnSync('umount', ['-l', mounted]);
    mounted = undefined;
  });

  it('a full disk: memory_save is a tool error the model reads, and the memory tools stay', async () => {
    mounted = mountTmpfs('256k') as string;
    const directory = join(mounted, 'brain');
    await toolsOf(directory); // seeded while there is room
    // Fill the disk to the last block.
    await writeFile(join(mounted, 'filler'), Buffer.alloc(256 * 1024)).catch(() => undefined);
    const { tools, warnings } = await toolsOf(directory);
    expect([...tools.keys()]).toEqual(['load_skill', 'read_skill_resource', 'memory_save', 'memory_recall']);
    expect(warnings.map(String)).toEqual([]);
    const saved = await call(tools, 'memory_save', { topic: 'notes/big', content: 'x'.repeat(19_000) });
    expect(saved.ok).toBe(false);
    expect(saved.error).toMatch(/ENOSPC|no space/i);
    expect((await call(tools, 'memory_recall', { query: 'anything' })).ok).toBe(true);
  });

  it('a read-only bundle keeps memory_recall (at once, not after the lock retries); memory_save says why it fails', async () => {
    mounted = mountTmpfs('1m') as string;
    const directory = join(mounted, 'brain');
    const first = await toolsOf(directory);
    expect(
      (await call(first.tools, 'memory_save', { topic: 'user', content: 'The user is called Ada.' })).ok,
    ).toBe(true);
    expect(spawnSync('mount', ['-o', 'remount,ro', mounted]).status).toBe(0);
    const started = Date.now();
    const { tools } = await toolsOf(directory);
    const recalled = await call(tools, 'memory_recall', { query: 'Ada' });
    expect(recalled.ok).toBe(true);
    expect(JSON.stringify(recalled.data)).toContain('USER.md');
    const saved = await call(tools, 'memory_save', { topic: 'user', content: 'The user likes tea.' });
    expect(saved.ok).toBe(false);
    expect(saved.error).toMatch(/EROFS|read-only/i);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
