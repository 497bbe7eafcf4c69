import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPostgresBin, type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcess, killRafProcesses, raf, showRun, until } from './test-support/durable-cli.js';

/**
 * `raf approve` when things go wrong (SPEC §14.2), each process in its own folder: an approve
 * killed with `kill -9` while its answer is being written claimed nothing — the run still waits
 * and `raf approve` again answers it, the worker finishing it with that answer; a run whose
 * status event is unreadable is shown as such by `raf runs show` and `raf approve` refuses it
 * (exit 2). Skipped without PostgreSQL.
 */
let cluster: PgCluster | undefined;
let store: string;
let root: string;
const hosts: string[] = [];

const ASK = `kind: workflow
name: ask-age
trigger:
  actions:
    - kind: Question
      id: ask_age
      question: { text: how old are you? }
      variable: Local.age
    - kind: If
      condition: =Local.age >= 18
      then:
        - kind: SendActivity
          activity: { text: adult }
      else:
        - kind: SendActivity
          activity: { text: minor }
`;

/** SQL on the store, through `psql` (what a test does to the database behind RAF's back). */
const sql = (query: string) =>
  execFileSync(join(findPostgresBin() ?? '', 'psql'), ['-qtA', '-d', store, '-c', query], {
    encoding: 'utf8',
  }).trim();

/** `raf run ask.yaml --durable` parked at its question (exit 3): its run id. */
async function parked(input: string): Promise<string> {
  const run = raf(['run', 'ask.yaml', '--durable', '--store', store, '-i', input], hosts[0] ?? '');
  expect(await run.exited, run.output().stderr).toBe(3);
  return /^run (\S+)$/m.exec(run.output().stdout)?.[1] ?? '';
}

describe.skipIf(postgresSkipReason !== undefined)('raf approve: crash-safe and strict', () => {
  beforeAll(async () => {
    cluster = await startPgCluster();
    store = cluster.createDatabase('durable_approve_recovery');
    root = await mkdtemp(join(tmpdir(), 'raf-cli-approve-recovery-'));
    for (let i = 0; i < 3; i++) {
      const folder = join(root, `host${i}`);
      await mkdir(folder);
      await writeFile(join(folder, 'ask.yaml'), ASK);
      hosts.push(folder);
    }
  }, 120_000);

  afterAll(async () => {
    killRafProcesses();
    cluster?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('a raf approve killed (kill -9) while writing its answer claimed nothing: raf approve again answers the run', async () => {
    const runId = await parked('Al');
    // The next message DBOS writes stalls 4 s, once: the kill lands inside the answer's transaction.
    sql(`CREATE SEQUENCE stall;
      CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF nextval('stall') = 1 THEN PERFORM pg_sleep(4); END IF; RETURN NEW; END $$;
      CREATE TRIGGER stall BEFORE INSERT ON dbos.notifications FOR EACH ROW EXECUTE FUNCTION stall();`);
    const killed = raf(['approve', runId, '--answer', '12', '--store', store], hosts[1] ?? '');
    await until(
      'the approve to be writing its answer',
      async () => sql('SELECT is_called FROM stall') === 't',
    );
    killed.child.kill('SIGKILL');
    expect(await killed.exited).toBeNull();
    sql('DROP TRIGGER stall ON dbos.notifications');
    expect((await showRun(store, hosts[2] ?? '', runId))?.status).toBe('paused');

    // The same command again (once the killed one's transaction is rolled back): answered, exit 0.
    const again = await inProcess(hosts[2] ?? '', ['approve', runId, '--answer', '30', '--store', store]);
    expect(again, again.err).toMatchObject({ code: 0, out: 'answered ask_age: 30\n' });
    const late = await inProcess(hosts[1] ?? '', ['approve', runId, '--answer', '12', '--store', store]);
    expect(late.code).toBe(5);
    const worker = raf(['worker', '--store', store], hosts[1] ?? '');
    await until(
      'the worker to finish the run',
      async () => (await showRun(store, hosts[2] ?? '', runId))?.status === 'finished',
    );
    expect(await showRun(store, hosts[2] ?? '', runId)).toMatchObject({ status: 'finished', text: 'adult' });
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output().stderr).toBe(0);
  }, 180_000);

  it('an unreadable status event: raf runs show says so (not merely running); raf approve refuses it (exit 2)', async () => {
    const runId = await parked('Bo');
    sql(`UPDATE dbos.workflow_events SET value = jsonb_set(value::jsonb, '{json,pause}', '"first"')::text
         WHERE workflow_uuid = '${runId}' AND key = 'raf.status'`);
    const shown = await inProcess(hosts[1] ?? '', ['runs', 'show', runId, '--store', store]);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toMatch(new RegExp(`^${runId}  (pending|running) `));
    expect(shown.out).toContain(`  warning: run ${runId}: its status event (raf.status) is unreadable (`);
    expect(shown.out).toContain('whether it waits for an answer is unknown\n');
    const refused = await inProcess(hosts[2] ?? '', ['approve', runId, '--answer', '30', '--store', store]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`run ${runId}: its status event (raf.status) is unreadable`);
    expect(refused.err).toContain(
      `nothing was answered (raf runs show ${runId}; raf runs cancel ${runId} ends the run)`,
    );
    const cancelled = await inProcess(hosts[1] ?? '', ['runs', 'cancel', runId, '--store', store, '--json']);
    expect(cancelled.code, cancelled.err).toBe(0);
    expect(JSON.parse(cancelled.out)).toMatchObject({ runId, status: 'cancelled' });
  }, 120_000);
});
