import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { sessionStoreKit } from '@raf/framework';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableTables } from './durable-tables.js';
import { recoverDeadExecutors } from './runtime-helpers.js';

let cluster: PgCluster | undefined;
let tables: DurableTables;
let url: string;

/** What recovery asks of DBOS: the dead executor's PENDING runs, and re-queueing each. */
function fakeDbos(failFirstResume: boolean) {
  const resumed: string[] = [];
  let failed = false;
  return {
    resumed,
    dbos: {
      listWorkflows: async (input: { workflowName?: string }) =>
        input.workflowName === 'run' ? [{ workflowID: 'run-1' }, { workflowID: 'run-2' }] : [],
      resumeWorkflow: async (id: string) => {
        if (failFirstResume && !failed) {
          failed = true;
          throw new Error('timeout exceeded when trying to connect');
        }
        resumed.push(id);
      },
    } as unknown as Parameters<typeof recoverDeadExecutors>[0],
  };
}

describe.skipIf(postgresSkipReason !== undefined)('taking over a dead executor', () => {
  beforeAll(async () => {
    cluster = await startPgCluster();
    url = cluster.createDatabase('recover_claim');
    tables = await DurableTables.open(url);
  }, 60_000);
  afterAll(async () => {
    await tables?.close();
    cluster?.stop();
  });

  it('a claim whose re-queue failed is given back, and the next pass re-queues the runs', async () => {
    await tables.registerExecutor('dead-1', 'run');
    await tables.release('dead-1');
    const options = { staleMs: 1500, queues: [['run', 'raf-runs']] as [string, string][] };

    const first = fakeDbos(true);
    await expect(recoverDeadExecutors(first.dbos, tables, 'worker-a', options)).rejects.toThrow(/timeout/);
    // Without giving the claim back, the dead executor was no candidate any more: its runs stayed PENDING.
    expect((await tables.candidates('worker-b')).map((r) => r.executor_id)).toContain('dead-1');

    const second = fakeDbos(false);
    await recoverDeadExecutors(second.dbos, tables, 'worker-b', options);
    expect(second.resumed).toEqual(['run-1', 'run-2']);
    expect((await tables.candidates('worker-c')).map((r) => r.executor_id)).not.toContain('dead-1');
  });

  it.runIf(sessionStoreKit.processStart(process.pid) !== undefined)(
    'a process of this host whose pid now names another process is taken over at once, not after 60 s',
    async () => {
      const other = spawn('sleep', ['30']);
      await once(other, 'spawn');
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        const options = { staleMs: 1500, queues: [['run', 'raf-runs']] as [string, string][] };
        // Two rows with a fresh heartbeat on this host and the live pid of `sleep`: one recorded
        // with that process's start time (alive), one with another (its process died, the pid was reused).
        await tables.registerExecutor('same-pid', 'run');
        await tables.registerExecutor('reused-pid', 'run');
        const start = sessionStoreKit.processStart(other.pid!)!;
        await db.query('UPDATE raf_durable_executors SET pid = $1, proc_start = $2 WHERE executor_id = $3', [
          other.pid,
          start,
          'same-pid',
        ]);
        await db.query('UPDATE raf_durable_executors SET pid = $1, proc_start = $2 WHERE executor_id = $3', [
          other.pid,
          `${Number(start) + 1}`,
          'reused-pid',
        ]);

        const worker = fakeDbos(false);
        await recoverDeadExecutors(worker.dbos, tables, 'worker-d', options);
        expect(worker.resumed).toEqual(['run-1', 'run-2']);
        const left = (await tables.candidates('worker-e')).map((r) => r.executor_id);
        expect(left).toContain('same-pid');
        expect(left).not.toContain('reused-pid');
      } finally {
        await db.end();
        other.kill('SIGKILL');
      }
    },
  );
});
