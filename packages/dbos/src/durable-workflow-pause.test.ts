import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, SessionConflictError } from '@raf/core';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableControl, type DurableRunInfo } from './index.js';
import { startChild, until } from './test-support/child-process.js';

/**
 * A durable workflow that halts parks (SPEC §14.2, §14.4): a process waiting on its run goes on
 * when another answers (`DurableControl.answer`); killed with SIGKILL in the segment after that
 * answer, a worker replays the pause and its answer from the record and goes on from the newest
 * checkpoint (the node before the pause does not run again); the second question parks the run
 * in the worker; a decision is refused as the wrong kind of answer; of two answers one wins.
 */
const script = fileURLToPath(new URL('./test-support/workflow-process.ts', import.meta.url));

let root: string;
let url: string;
let cluster: PgCluster | undefined;
let control: DurableControl;
const children: ChildProcess[] = [];

const start = (args: string[]) => {
  const child = startChild(script, args);
  children.push(child.child);
  return child;
};

const pausedAt = (prompt: string) => (info: DurableRunInfo | undefined) =>
  info?.status === 'paused' && info.questions?.[0]?.prompt === prompt ? info : undefined;

describe.skipIf(postgresSkipReason !== undefined)('a durable workflow that pauses', () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'raf-durable-workflow-pause-'));
    cluster = await startPgCluster();
    url = cluster.createDatabase('durable_workflow_pause');
    const { DBOS } = await import('@dbos-inc/dbos-sdk');
    await DBOS.migrate(url);
    control = await DurableControl.open(url);
  }, 120_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await control?.close();
    cluster?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const effects = async () =>
    (await readFile(join(root, 'effects.log'), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[1] ?? '');

  it('answered while its process waits, killed after, finished by a worker through a second pause', async () => {
    const runId = 'pauses-1';
    const first = start(['start', root, url, runId, 'pause']);
    const one = await until('the first pause', async () =>
      pausedAt('first answer to go?')(await control.show(runId)),
    );
    expect(one).toMatchObject({
      questions: [{ nodeId: 'first', prompt: 'first answer to go?' }],
      requests: [],
    });
    await expect(control.answer(runId, { answer: 'all' })).rejects.toThrow(ConfigError);
    await expect(control.answer(runId, { answer: 'all' })).rejects.toThrow(
      /not an approval: give --answer TEXT/,
    );
    await expect(control.answer(runId, { answers: ['A', 'B'] })).rejects.toThrow(
      /give one --answer TEXT \(got 2\)/,
    );
    // The process waiting on the run goes on with the answer: `slow` starts there.
    expect(await control.answer(runId, { answers: ['A'] })).toEqual({
      approvals: [],
      answers: [{ nodeId: 'first', prompt: 'first answer to go?', answer: 'A' }],
    });
    await first.effects(2);
    expect(await effects()).toEqual(['start', 'slow-start']);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(first.output().stdout).toContain('"status":"paused"');

    const worker = start(['worker', root, url, '', 'pause']);
    const two = await until('the worker to park at the second question', async () =>
      pausedAt('second answer after A?')(await control.show(runId)),
    );
    expect(two.questions).toEqual([{ nodeId: 'second', prompt: 'second answer after A?' }]);
    // `start` finished before the pause: it did not run again; `slow` was killed, so it ran again.
    expect(await effects()).toEqual(['start', 'slow-start', 'slow-start', 'slow']);
    const answers = await Promise.allSettled([
      control.answer(runId, { answers: ['B'] }),
      control.answer(runId, { answers: ['C'] }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = answers.find((a) => a.status === 'rejected');
    expect(lost?.status === 'rejected' && lost.reason).toBeInstanceOf(SessionConflictError);
    const won = answers.find((a) => a.status === 'fulfilled');
    const text = won?.status === 'fulfilled' ? `end: ${won.value.answers[0]?.answer}` : '';
    await until('the run to finish', async () =>
      (await control.show(runId))?.status === 'finished' ? true : undefined,
    );
    expect(await control.show(runId)).toMatchObject({ status: 'finished', text });
    expect(await effects()).toEqual(['start', 'slow-start', 'slow-start', 'slow']);
    worker.child.kill('SIGTERM');
    await worker.exited;
  }, 180_000);
});
