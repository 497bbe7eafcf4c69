import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableTables } from './durable-tables.js';
import { recoverDeadExecutors } from './runtime-helpers.js';

let cluster: PgCluster | undefined;
let tables: DurableTables;

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
    tables = await DurableTables.open(cluster.createDatabase('recover_claim'));
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
});
