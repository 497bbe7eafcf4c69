import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { SessionConflictError, SessionError } from '@raf/core';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableControl, type DurableRunInfo } from './index.js';
import { dbosSystemUrl } from './system-url.js';
import { startChild, until } from './test-support/child-process.js';

/**
 * Answering a parked run when something goes wrong: the answer's message cannot be written (a
 * fault injected in the database, once) — nothing was claimed, the run still waits, the same
 * answer again goes through and two at once still give one winner; junk sent to the pause's
 * topic with a real DBOS client — the run stays paused with a warning and a proper answer
 * finishes it; a status event that does not parse — shown as unreadable, not as running, and
 * answering it is refused. Runs of the two-question workflow, parked in a process waiting on them.
 */
const script = fileURLToPath(new URL('./test-support/workflow-process.ts', import.meta.url));

let root: string;
let url: string;
let cluster: PgCluster | undefined;
let control: DurableControl;
let sender: DBOSClient;
let db: pg.Client;
const children: ChildProcess[] = [];

const start = (runId: string) => {
  const child = startChild(script, ['start', root, url, runId, 'pause']);
  children.push(child.child);
  return child;
};
const pausedAt = (runId: string, prompt: string) =>
  until(`${runId} to wait for "${prompt}"`, async () => {
    const info = await control.show(runId);
    return info?.status === 'paused' && info.questions?.[0]?.prompt === prompt ? info : undefined;
  });
const finished = (runId: string) =>
  until(`${runId} to finish`, async () => {
    const info = await control.show(runId);
    return info?.status === 'finished' ? info : undefined;
  });

describe.skipIf(postgresSkipReason !== undefined)('answering a parked run', () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'raf-answer-parked-'));
    cluster = await startPgCluster();
    url = cluster.createDatabase('answer_parked');
    const { DBOS, DBOSClient } = await import('@dbos-inc/dbos-sdk');
    await DBOS.migrate(url);
    control = await DurableControl.open(url);
    sender = await DBOSClient.create({ systemDatabaseUrl: dbosSystemUrl(url) });
    db = new pg.Client({ connectionString: url });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await db?.end();
    await sender?.destroy();
    await control?.close();
    cluster?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('an answer whose message cannot be written claims nothing: answered again, it goes through; then junk on the topic is ignored with a warning', async () => {
    const runId = 'blip-1';
    const run = start(runId);
    await pausedAt(runId, 'first answer to go?');
    // The next message DBOS writes fails, once (a sequence: not rolled back with the failure).
    await db.query(`CREATE SEQUENCE blip;
      CREATE FUNCTION blip() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF nextval('blip') = 1 THEN RAISE EXCEPTION 'injected: the connection dropped'; END IF;
        RETURN NEW; END $$;
      CREATE TRIGGER blip BEFORE INSERT ON dbos.notifications FOR EACH ROW EXECUTE FUNCTION blip();`);
    const failed = control.answer(runId, { answers: ['A'] });
    await expect(failed).rejects.toThrow(SessionError);
    await expect(failed).rejects.toThrow(
      /blip-1: the answer could not be sent \(injected: the connection dropped\); nothing was claimed, the run still waits/,
    );
    await db.query('DROP TRIGGER blip ON dbos.notifications');
    // Not claimed, nothing sent: still waiting at the same question, and answerable.
    await pausedAt(runId, 'first answer to go?');
    const answers = await Promise.allSettled([
      control.answer(runId, { answers: ['B'] }),
      control.answer(runId, { answers: ['C'] }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = answers.find((a) => a.status === 'rejected');
    expect(lost?.status === 'rejected' && lost.reason).toBeInstanceOf(SessionConflictError);
    const won = answers.find((a) => a.status === 'fulfilled');
    const first = won?.status === 'fulfilled' ? (won.value.answers[0]?.answer ?? '') : '';

    // The second pause (`raf.approval.1`): anything else sent there does not fail the run.
    const second = `second answer after ${first}?`;
    await pausedAt(runId, second);
    await sender.send(runId, { approvals: 'all of them' }, 'raf.approval.1');
    await sender.send(runId, {}, 'raf.approval.1');
    await sender.send(runId, 'not an answer', 'raf.approval.1');
    const warned = await until('the run to warn', async () => {
      const info = await control.show(runId);
      return info?.warning?.includes('expected object, received string') ? info : undefined;
    });
    expect(warned).toMatchObject<Partial<DurableRunInfo>>({
      status: 'paused',
      questions: [{ nodeId: 'second', prompt: second }],
    });
    expect(warned.warning).toMatch(
      /^ignored a message on raf\.approval\.1 that is not an answer to this pause: /,
    );
    expect(run.output().stdout).not.toContain('"status":"failed"');
    await control.answer(runId, { answers: ['D'] });
    expect(await finished(runId)).toMatchObject({ status: 'finished', text: 'end: D' });
    expect(await run.exited, run.output().stderr).toBe(0);
  }, 180_000);

  it('a status event that does not parse: shown as unreadable (not as running with nothing to answer); answering it is refused', async () => {
    const runId = 'bad-status-1';
    start(runId);
    await pausedAt(runId, 'first answer to go?');
    // What a bad writer could leave: the event well serialized, its content no run state.
    await db.query(
      `UPDATE dbos.workflow_events SET value = jsonb_set(value::jsonb, '{json,pause}', '"first"')::text
       WHERE workflow_uuid = $1 AND key = 'raf.status'`,
      [runId],
    );
    const shown = await control.show(runId);
    expect(shown?.status).toBe('running');
    expect(shown?.questions).toBeUndefined();
    expect(shown?.warning).toMatch(
      /^run bad-status-1: its status event \(raf\.status\) is unreadable \(.*pause.*\): whether it waits for an answer is unknown$/,
    );
    const refused = control.answer(runId, { answers: ['A'] });
    await expect(refused).rejects.toThrow(SessionError);
    await expect(refused).rejects.toThrow(
      /its status event \(raf\.status\) is unreadable .*nothing was answered \(raf runs show bad-status-1; raf runs cancel bad-status-1 ends the run\)/,
    );
    // Not even a value DBOS can read back: the same, with DBOS's reason.
    await db.query(
      `UPDATE dbos.workflow_events SET value = 'not json' WHERE workflow_uuid = $1 AND key = 'raf.status'`,
      [runId],
    );
    expect((await control.show(runId))?.warning).toMatch(
      /^run bad-status-1: its status event \(raf\.status\) is unreadable \(.+\): whether it waits for an answer is unknown$/,
    );
    await expect(control.answer(runId, { answers: ['A'] })).rejects.toThrow(SessionError);
    expect((await control.cancel(runId)).status).toBe('cancelled');
  }, 120_000);
});
