import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockModelServer } from '@raf/client/testing';
import { INTERRUPTED_ERROR } from '@raf/framework';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableControl, type DurableRunInfo } from './index.js';
import { startChild, until } from './test-support/child-process.js';
import { fourRoundModel, ROUNDS } from './test-support/four-round-run.js';

/**
 * Acceptance of issue 30: a four-round durable run, killed with SIGKILL at a random point, is
 * finished by a worker (another process): every bump whose step finished ran exactly once, a bump
 * in doubt is reported to the model (not run again), and the answer is the uninterrupted one.
 * `RAF_DURABLE_KILLS` kills (default 30), 3 at a time.
 */
const KILLS = Number(process.env.RAF_DURABLE_KILLS ?? 30);
const AT_ONCE = 3;
const script = fileURLToPath(new URL('./test-support/durable-process.ts', import.meta.url));

const start = (args: string[]) => startChild(script, args);

let root: string;
let url: string;
let cluster: PgCluster | undefined;
let server: Awaited<ReturnType<typeof startMockModelServer>>;
let control: DurableControl;
const workers: ChildProcess[] = [];

const ended = (info: DurableRunInfo | undefined) =>
  info && (info.status === 'finished' || info.status === 'failed' || info.status === 'cancelled')
    ? info
    : undefined;

describe.skipIf(postgresSkipReason !== undefined)('durable runs under kill -9', () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'raf-durable-crash-'));
    server = await startMockModelServer({
      turns: (request) => fourRoundModel(request),
      recordRequests: false,
    });
    cluster = await startPgCluster();
    url = cluster.createDatabase('durable');
    // DBOS's first launch creates its schema: once here, before processes start together.
    const { DBOS } = await import('@dbos-inc/dbos-sdk');
    await DBOS.migrate(url);
    control = await DurableControl.open(url);
    const worker = start(['worker', server.baseURL, root, url]);
    workers.push(worker.child);
    await worker.effects(0);
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await control?.close();
    await server?.close();
    cluster?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const effectsOf = async (runId: string) =>
    (await readFile(join(root, 'effects.log'), 'utf8').catch(() => ''))
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([, session]) => session === runId)
      .map(([pid, , what]) => ({ pid: Number(pid), what: what ?? '' }));

  const bumpsOf = async (runId: string) =>
    (await readFile(join(root, 'effects.log'), 'utf8').catch(() => ''))
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([, session, what]) => session === runId && what && !what.startsWith('look:'))
      .map(([, , what]) => what!);

  it('an uninterrupted durable run: four rounds, each bump once, then the answer', async () => {
    const run = start(['start', server.baseURL, root, url, 'base']);
    expect(await run.exited, run.output().stderr).toBe(0);
    const last = JSON.parse(run.output().stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ status: 'ended', reason: 'stop', text: 'done', runId: 'base' });
    expect((await bumpsOf('base')).sort()).toEqual(['b0', 'b1', 'b2', 'b3']);
    expect(await control.show('base')).toMatchObject({ runId: 'base', status: 'finished', text: 'done' });
  }, 60_000);

  it(`killed at ${KILLS} random points, a worker finishes each run: completed calls once, in-doubt ones reported`, async () => {
    let recovered = 0;
    let inDoubt = 0;
    const recoveryMs: number[] = [];
    const once = async (i: number) => {
      const runId = `kill-${i}`;
      const first = start(['start', server.baseURL, root, url, runId]);
      await first.effects(1 + Math.floor(Math.random() * (2 * ROUNDS - 1)));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
      first.child.kill('SIGKILL');
      await first.exited;
      const killedAt = Date.now();
      const info = await until(`run ${runId} to end`, async () => ended(await control.show(runId)));
      recoveryMs.push(Date.now() - killedAt);
      recovered++;
      expect(info, runId).toMatchObject({ status: 'finished', text: 'done' });
      const bumps = await bumpsOf(runId);
      expect(new Set(bumps).size, `${runId}: a bump ran twice: ${bumps.join(' ')}`).toBe(bumps.length);
      // What the model read of each bump: a result, or the in-doubt error (then it may have run once).
      const { steps } = await control.steps(runId);
      for (const round of Array.from({ length: ROUNDS }, (_, r) => `b${r}`)) {
        const step = steps.find((s) => s.name === `tool:${round}`);
        expect(step, `${runId}: step of ${round}`).toBeDefined();
        const result = step?.output as { ok: boolean; error?: string };
        if (result.ok)
          expect(
            bumps.filter((b) => b === round),
            `${runId} ${round}`,
          ).toHaveLength(1);
        else {
          expect(result.error).toBe(INTERRUPTED_ERROR);
          inDoubt++;
        }
      }
    };
    for (let i = 0; i < KILLS; i += AT_ONCE)
      await Promise.all(Array.from({ length: Math.min(AT_ONCE, KILLS - i) }, (_, k) => once(i + k)));
    expect(recovered).toBe(KILLS);
    recoveryMs.sort((a, b) => a - b);
    console.log(
      `durable kill -9 x${KILLS}: all finished by the worker, ${inDoubt} bumps in doubt reported; kill → finished median ${recoveryMs[Math.floor(recoveryMs.length / 2)]} ms`,
    );
  }, 900_000);

  it('a worker killed mid-run: another worker takes its runs over and finishes them', async () => {
    // The shared worker goes first (kill -9), so the run can only go on in the next one.
    const first = start(['start', server.baseURL, root, url, 'takeover']);
    await first.effects(1);
    first.child.kill('SIGKILL');
    await first.exited;
    const holder = workers[0]!;
    await until('the worker to go on with the run', async () =>
      (await effectsOf('takeover')).some((e) => e.pid === holder.pid) ? true : undefined,
    );
    holder.kill('SIGKILL');
    const next = start(['worker', server.baseURL, root, url]);
    workers.push(next.child);
    await next.effects(0);
    const info = await until('run takeover to end', async () => ended(await control.show('takeover')));
    expect(info).toMatchObject({ status: 'finished', text: 'done' });
    const effects = await effectsOf('takeover');
    expect(
      effects.some((e) => e.pid === next.child.pid),
      JSON.stringify(effects),
    ).toBe(true);
    const bumps = effects.filter((e) => !e.what.startsWith('look:')).map((e) => e.what);
    expect(new Set(bumps).size, bumps.join(' ')).toBe(bumps.length);
  }, 120_000);
});
