import { mkdtemp, realpath, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ITool } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchFileTool } from '../../builtin-tools/search-file.js';
import { isInstalled } from '../../lazy-require.js';
import { WorkspaceContextProvider } from '../workspace-context-provider.js';
import type { LocalSearchOptions } from './local-search-operations.js';
import { createLocalToolOperations } from './local-tool-operations.js';
import { hasRipgrep } from './ripgrep-search.js';

let dir: string;
const rgInstalled = await hasRipgrep();
/** Each engine, and whether it can run here: ripgrep's cases are reported as skipped without it. */
const engines = [
  ['walker', true],
  ['ripgrep', rgInstalled],
] as const;
/**
 * The walker's linear engine is an optional peer (a devDependency here, so CI runs its case);
 * without it, the consumer test checks that such a search ends at its time bound and says so.
 */
const re2jsInstalled = isInstalled('re2js');

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-search-bounds-')));
  // 40 a's and a non-matching end: `^(a+)+$` backtracks 2^40 times on it in a backtracking engine.
  await writeFile(join(dir, 'evil.txt'), `${'a'.repeat(40)}!\nneedle\naaaa\n`);
  await writeFile(join(dir, 'million.txt'), 'needle\n'.repeat(1_000_000));
  await writeFile(join(dir, 'huge.txt'), 'needle\n');
  await truncate(join(dir, 'huge.txt'), 10 * 1024 ** 3); // sparse: 10 GB in no disk space
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function searchTool(search: LocalSearchOptions): ITool {
  const provider = new WorkspaceContextProvider(
    { root: dir, name: 'ws', policy: 'DenyOutside' },
    { operations: createLocalToolOperations({ search }) },
  ).addTool(createSearchFileTool());
  return provider.tools[0] as ITool;
}

const call = (tool: ITool, args: Record<string, unknown>, signal = new AbortController().signal) =>
  tool.execute(args, { signal, callId: 'c' });

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('catastrophic patterns (ReDoS) end within the time bound', () => {
  for (const [engine, installed] of engines)
    it.runIf(installed && (engine === 'ripgrep' || re2jsInstalled))(
      `${engine}: \`^(a+)+$\` answers (linear engine), and the next search works`,
      async () => {
        const tool = searchTool({ engine, timeoutMs: 15_000 });
        const { value, ms } = await timed(() => call(tool, { pattern: '^(a+)+$', directory: 'evil.txt' }));
        expect(value).toMatchObject({
          ok: true,
          data: { matches: [{ line: 3, content: 'aaaa' }], total: 1 },
        });
        expect(ms).toBeLessThan(15_000);
        expect(await call(tool, { pattern: 'needle', directory: 'evil.txt' })).toMatchObject({
          ok: true,
          data: { matches: [{ line: 2, content: 'needle' }] },
        });
      },
    );

  for (const [engine, installed] of engines)
    it.runIf(installed)(
      `${engine}: \`(?=a)(a+)+b\` (a look-ahead: no linear engine) times out with a clear error`,
      async () => {
        const tool = searchTool({ engine, timeoutMs: 2_000 });
        const { value, ms } = await timed(() => call(tool, { pattern: '(?=a)(a+)+b', directory: '.' }));
        expect(value).toMatchObject({
          ok: false,
          error: expect.stringMatching(/search timed out after 2 s/),
        });
        expect(ms).toBeLessThan(10_000);
        // The stuck worker was terminated and replaced: the pool still answers.
        expect(await call(tool, { pattern: 'needle', directory: 'evil.txt' })).toMatchObject({
          ok: true,
          data: { total: 1 },
        });
      },
    );

  it('aborting the call (run cancelled, per-tool timeout) terminates the stuck worker at once', async () => {
    const tool = searchTool({ engine: 'walker', timeoutMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled by the run')), 300);
    const { value, ms } = await timed(() =>
      call(tool, { pattern: '(?=a)(a+)+b', directory: '.' }, controller.signal).catch(
        (error: Error) => error,
      ),
    );
    expect(String((value as { error?: string }).error ?? value)).toMatch(/cancelled by the run/);
    expect(ms).toBeLessThan(5_000);
    expect(await call(tool, { pattern: 'needle', directory: 'evil.txt' })).toMatchObject({ ok: true });
  });
});

describe('size cap and huge files', () => {
  for (const [engine, installed] of engines)
    it.runIf(installed)(
      `${engine}: a 10 GB file named as \`directory\` is skipped at once, and said so`,
      async () => {
        const tool = searchTool({ engine });
        const { value, ms } = await timed(() => call(tool, { pattern: 'needle', directory: 'huge.txt' }));
        expect(value).toMatchObject({
          ok: true,
          data: {
            matches: [],
            skipped: [{ path: join(dir, 'huge.txt'), reason: 'over 50 MB' }],
            skipped_count: 1,
          },
        });
        expect(ms).toBeLessThan(5_000);
      },
    );

  for (const [engine, installed] of engines)
    it.runIf(installed)(`${engine}: inside a folder too, and the cap is configurable`, async () => {
      const tool = searchTool({ engine, maxFileBytes: 1024 });
      const result = await call(tool, { pattern: 'needle', directory: '.', include: '*.txt' });
      const data = result.data as {
        matches: { file: string }[];
        skipped: { path: string; reason: string }[];
      };
      expect(new Set(data.matches.map((m) => m.file))).toEqual(new Set([join(dir, 'evil.txt')]));
      expect(data.skipped).toEqual([
        { path: join(dir, 'huge.txt'), reason: 'over 1 KB' },
        { path: join(dir, 'million.txt'), reason: 'over 1 KB' },
      ]);
    });

  for (const [engine, installed] of engines)
    it.runIf(installed)(
      `${engine}: a million matching lines give 200 capped matches (no stack overflow)`,
      async () => {
        const tool = searchTool({ engine });
        const result = await call(tool, { pattern: 'needle', directory: 'million.txt' });
        expect(result).toMatchObject({ ok: true, data: { total: 200, truncated: true } });
        const lines = (result.data as { matches: { line: number }[] }).matches.map((m) => m.line);
        expect(lines).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      },
    );
});
