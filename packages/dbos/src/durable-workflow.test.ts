import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPostgresStore, type PostgresStore } from '@raf/postgres';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableControl, type DurableRunInfo } from './index.js';
import { startChild, until } from './test-support/child-process.js';
import { BRANCHES } from './test-support/fan-out-workflow.js';

/**
 * Issue 30: a workflow runs durably. Its fan-out (six branches, three at a time) is killed with
 * SIGKILL inside the superstep, `RAF_DURABLE_WORKFLOW_KILLS` times (default 5); the worker (another
 * process) finishes each run from the checkpoints in the store: a branch that had finished (its
 * checkpoint written) is not run again, the others run, and the answer is the uninterrupted one.
 */
const KILLS = Number(process.env.RAF_DURABLE_WORKFLOW_KILLS ?? 5);
const script = fileURLToPath(new URL('./test-support/workflow-process.ts', import.meta.url));
const EXPECTED = Array.from({ length: BRANCHES }, (_, b) => `b${b}:go`).join(',');

const start = (args: string[]) => startChild(script, args);

const ended = (info: DurableRunInfo | undefined) =>
  info && (info.status === 'finished' || info.status === 'failed' || info.status === 'cancelled')
    ? info
    : undefined;

let root: string;
let url: string;
let cluster: PgCluster | undefined;
let control: DurableControl;
let store: PostgresStore;
let worker: ChildProcess | undefined;

describe.skipIf(postgresSkipReason !== undefined)('durable workflows under kill -9', () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'raf-durable-workflow-'));
    cluster = await startPgCluster();
    url = cluster.createDatabase('durable_workflow');
    const { DBOS } = await import('@dbos-inc/dbos-sdk');
    await DBOS.migrate(url);
    control = await DurableControl.open(url);
    store = await openPostgresStore(url);
  }, 120_000);

  afterAll(async () => {
    worker?.kill('SIGKILL');
    await control?.close();
    await store?.close();
    cluster?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const effects = async () =>
    (await readFile(join(root, 'effects.log'), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[1] ?? '');

  it('an uninterrupted durable workflow run: each branch once, the fan-in answer', async () => {
    const run = start(['start', root, url, 'base']);
    expect(await run.exited, run.output().stderr).toBe(0);
    const last = JSON.parse(run.output().stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ status: 'ended', reason: 'stop', text: EXPECTED });
    expect((await effects()).sort()).toEqual(Array.from({ length: BRANCHES }, (_, b) => `b${b}`));
    expect(await control.show('base')).toMatchObject({ status: 'finished', text: EXPECTED });
  }, 60_000);

  it(`killed inside the fan-out ${KILLS} times: a worker finishes each run, no finished branch runs again`, async () => {
    const next = start(['worker', root, url]);
    worker = next.child;
    await next.effects(0);
    let kept = 0;
    for (let i = 0; i < KILLS; i++) {
      const runId = `kill-${i}`;
      await writeFile(join(root, 'effects.log'), '');
      const first = start(['start', root, url, runId]);
      await first.effects(1 + Math.floor(Math.random() * (BRANCHES - 2)));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
      first.child.kill('SIGKILL');
      await first.exited;
      // What the store holds at the kill: the branches whose completion was checkpointed.
      const latest = await store.checkpoints.load(runId);
      const state = latest?.state as
        | { pending: [string, unknown][]; progress?: { done: { outcome: { nodeId: string } }[] } }
        | undefined;
      const past = state?.pending.some(([id]) => id === 'join') === true;
      const done = past
        ? Array.from({ length: BRANCHES }, (_, b) => `b${b}`)
        : (state?.progress?.done.map((d) => d.outcome.nodeId) ?? []);
      kept += done.length;
      const info = await until(`run ${runId} to end`, async () => ended(await control.show(runId)));
      expect(info, runId).toMatchObject({ status: 'finished', text: EXPECTED });
      const ran = await effects();
      for (let b = 0; b < BRANCHES; b++) expect(ran, `${runId}: b${b} never ran`).toContain(`b${b}`);
      for (const id of done)
        expect(
          ran.filter((r) => r === id),
          `${runId}: ${id} finished before the kill and ran again (${ran.join(' ')})`,
        ).toHaveLength(1);
    }
    console.log(`durable workflow kill -9 x${KILLS}: ${kept} finished branches kept, none run again`);
  }, 600_000);
});
