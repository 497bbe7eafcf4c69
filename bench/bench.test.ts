import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = fileURLToPath(new URL('./run.ts', import.meta.url));
const builtCli = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
const builtFramework = fileURLToPath(new URL('../packages/framework/dist/index.js', import.meta.url));

describe('benchmarks', () => {
  it('run end to end (--quick) and print the documented JSON shape', async () => {
    // From source, like the rest of the tests: no build needed. The workers inherit the condition.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', run, '--quick', '--json'],
      {
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env: { ...process.env, NODE_OPTIONS: '--conditions=@raf/source' },
        // About 75 s alone on 2 cores; the margin is for a CPU shared with other test files.
        timeout: 300_000,
      },
    );
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(result.unit).toBe('CPU ms');
    for (const scenario of ['text2000', 'tools20']) {
      expect(result.client[scenario]).toMatchObject({
        raf: expect.any(Number),
        floor: expect.any(Number),
        openai: expect.any(Number),
      });
    }
    const loopContenders = ['aiSdk', 'floor', 'floorRequest', 'openaiAgents', 'raf'];
    for (const kind of ['cold', 'warm']) {
      expect(Object.keys(result.loop[kind]).sort()).toEqual(loopContenders);
      for (const value of Object.values(result.loop[kind])) expect(value).toBeGreaterThan(0);
      expect(result.loopRatios[kind]).toMatchObject({
        rafOverFloor: expect.any(Number),
        rafOverFasterPeer: expect.any(Number),
      });
    }
    expect(result.client.tools20.floorRequest).toEqual(expect.any(Number));
    expect(result.search.files).toBe(2000);
    expect(result.sandbox).toMatchObject({
      jsColdMs: expect.any(Number),
      jsWarmMs: expect.any(Number),
      jsNewToolMs: expect.any(Number),
    });
    expect(result.mcp).toMatchObject({ callMs: expect.any(Number), sdkCallMs: expect.any(Number) });
    expect(result.store).toMatchObject({
      saveP50Ms: { file: expect.any(Number), sqlite: expect.any(Number) },
      journalRoundP50Ms: { file: expect.any(Number), sqlite: expect.any(Number) },
      loopFileJournalOverPlain: expect.any(Number),
    });
    expect(result.serve).toMatchObject({
      streams: expect.any(Number),
      failed: 0,
      firstEventP50Ms: expect.any(Number),
      firstEventP99Ms: expect.any(Number),
      peakRssMiB: expect.any(Number),
      servedOverPlain: expect.any(Number),
    });
    // Null without PostgreSQL binaries (the section says so).
    if (result.durable !== null)
      expect(result.durable).toMatchObject({
        stepOverheadMs: expect.any(Number),
        recoveryMs: expect.any(Number),
        dispatchMs: expect.any(Number),
      });
    expect(result.delegate).toMatchObject({
      workerStartMs: expect.any(Number),
      inlineMs: expect.any(Number),
      proxyCallMs: expect.any(Number),
    });
    expect(result.rag).toMatchObject({
      indexDocsPerSec: expect.any(Number),
      queryP50Ms: expect.any(Number),
      queryP95Ms: expect.any(Number),
      lexical: { documents: 300, chunks: expect.any(Number) },
      minisearch: { documents: 300 },
      hybrid: { documents: 300 },
    });
    // Measured on the built packages (CI builds before testing); a source-only checkout skips them.
    if (existsSync(builtCli) && existsSync(builtFramework)) {
      expect(result.coldStart.aboveNodeMs).toMatchObject({
        importFramework: expect.any(Number),
        validate: expect.any(Number),
        inspect: expect.any(Number),
        runToFirstRequest: expect.any(Number),
        runToExit: expect.any(Number),
      });
      for (const name of ['raf', 'floor', 'floorLateTierUp', 'openaiAgents', 'aiSdk'])
        expect(result.coldRun[name]).toBeGreaterThan(0);
    }
    expect(result.web).toMatchObject({
      fetchReadabilityMarkdownMs: expect.any(Number),
      fetchReadabilityMarkdownWallMs: expect.any(Number),
      fetchReadabilityMarkdownDenseMs: expect.any(Number),
    });
    expect(result.web.markdownChars.news).toBeGreaterThan(50_000);
    expect(result.memory).toMatchObject({
      pages: 500,
      recallP50Ms: expect.any(Number),
      saveP50Ms: expect.any(Number),
    });
    expect(result.search.wallMs).toMatchObject({
      searchWalker: expect.any(Number),
      findFiles: expect.any(Number),
      grep: expect.any(Number),
    });
  }, 310_000);
});
