import { hostname } from 'node:os';
import { redactStoreUrl, SessionError } from '@raf/core';
import { sessionStoreKit } from '@raf/framework';
import pg from 'pg';
import * as z from 'zod';

/**
 * RAF's own rows beside DBOS's schema, in the same database: which process (DBOS executor) is
 * alive, which tool calls started (the in-doubt rule, SPEC §14.1), and approval claims. Created
 * on first use under an advisory lock (processes starting together create them once).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS raf_durable_executors (
  executor_id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, role TEXT NOT NULL,
  heartbeat_at BIGINT NOT NULL, released BOOLEAN NOT NULL DEFAULT false, recovered_by TEXT);
ALTER TABLE raf_durable_executors ADD COLUMN IF NOT EXISTS proc_start TEXT;
CREATE TABLE IF NOT EXISTS raf_durable_calls (
  run_id TEXT NOT NULL, call_id TEXT NOT NULL, started_at BIGINT NOT NULL, PRIMARY KEY (run_id, call_id));
CREATE TABLE IF NOT EXISTS raf_durable_approvals (
  run_id TEXT NOT NULL, pause INTEGER NOT NULL, claimed_at BIGINT NOT NULL, PRIMARY KEY (run_id, pause));`;

// Any constant: the advisory lock the tables are created under.
const SCHEMA_LOCK = 0x72_61_66_30;
const LAUNCH_LOCK = 0x72_61_66_31;

const executorRow = z.object({
  executor_id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  heartbeat_at: z.coerce.number(),
  released: z.boolean(),
  // When the process started (`processStart`); null on hosts without /proc and in rows of older versions.
  proc_start: z.string().nullable(),
});
export type ExecutorRow = z.infer<typeof executorRow>;

export class DurableTables {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
  ) {}

  static async open(url: string): Promise<DurableTables> {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    // An idle connection the server drops must not crash the process.
    pool.on('error', () => undefined);
    const tables = new DurableTables(pool, url);
    try {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
        await client.query(SCHEMA);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new SessionError(`cannot open the durable-run tables on ${redactStoreUrl(url)}`, {
        cause: error,
      });
    }
    return tables;
  }

  /**
   * Runs `work` holding a database-wide advisory lock: DBOS's first launch creates its schema, and
   * processes launching together on a fresh database must not create it at the same time. The
   * lock is polled with `pg_try_advisory_lock`, never waited for in a statement: DBOS's migration
   * runs `CREATE INDEX CONCURRENTLY`, which waits for every open transaction, and a waiter blocked
   * in `pg_advisory_lock` is one, so the holder's migration and the waiter would wait on each
   * other forever (a cycle through the holder's process that Postgres cannot see).
   */
  async exclusively<T>(work: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      for (let wait = 20; ; wait = Math.min(wait * 2, 250)) {
        const { rows } = await client.query('SELECT pg_try_advisory_lock($1) AS locked', [LAUNCH_LOCK]);
        if (z.array(z.object({ locked: z.boolean() })).parse(rows)[0]?.locked) break;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      try {
        return await work();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [LAUNCH_LOCK]).catch(() => undefined);
      }
    } finally {
      client.release();
    }
  }

  get where(): string {
    return redactStoreUrl(this.url);
  }

  async registerExecutor(executorId: string, role: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO raf_durable_executors (executor_id, host, pid, role, heartbeat_at, proc_start)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (executor_id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at, released = false, recovered_by = NULL`,
      [
        executorId,
        hostname(),
        process.pid,
        role,
        Date.now(),
        sessionStoreKit.processStart(process.pid) ?? null,
      ],
    );
  }

  /** `false`: another process declared this one dead and took its runs over (fenced). */
  async heartbeat(executorId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE raf_durable_executors SET heartbeat_at = $2 WHERE executor_id = $1 AND recovered_by IS NULL',
      [executorId, Date.now()],
    );
    return rowCount === 1;
  }

  /** The process stops holding runs: workers take its pending runs over at once. */
  async release(executorId: string): Promise<void> {
    await this.pool.query('UPDATE raf_durable_executors SET released = true WHERE executor_id = $1', [
      executorId,
    ]);
  }

  /** Executors nobody recovered yet, but `me`. */
  async candidates(me: string): Promise<ExecutorRow[]> {
    const { rows } = await this.pool.query(
      `SELECT executor_id, host, pid, heartbeat_at, released, proc_start FROM raf_durable_executors
       WHERE recovered_by IS NULL AND executor_id <> $1`,
      [me],
    );
    return z.array(executorRow).parse(rows);
  }

  /** Compare-and-set: `true` for exactly one claimer of a dead executor's runs. */
  async claimExecutor(dead: string, me: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE raf_durable_executors SET recovered_by = $2 WHERE executor_id = $1 AND recovered_by IS NULL',
      [dead, me],
    );
    return rowCount === 1;
  }

  /** Gives a claim back (its runs could not all be re-queued): the next recovery pass claims it again. */
  async releaseClaim(dead: string, me: string): Promise<void> {
    await this.pool.query(
      'UPDATE raf_durable_executors SET recovered_by = NULL WHERE executor_id = $1 AND recovered_by = $2',
      [dead, me],
    );
  }

  /** Recovered executors are kept a while (a fenced process reads its row), then dropped. */
  async forgetRecovered(olderThanMs: number): Promise<void> {
    await this.pool.query(
      'DELETE FROM raf_durable_executors WHERE recovered_by IS NOT NULL AND heartbeat_at < $1',
      [Date.now() - olderThanMs],
    );
  }

  /** `true` the first time a call starts; `false` when it started before (it is in doubt). */
  async markStarted(runId: string, callId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO raf_durable_calls (run_id, call_id, started_at) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [runId, callId, Date.now()],
    );
    return rowCount === 1;
  }

  /**
   * When `key` of `runId` was first marked (epoch ms): the first caller records the time, every
   * later one (a step run again after a crash) reads that same time back.
   */
  async firstMarkedAt(runId: string, key: string): Promise<number> {
    const { rows } = await this.pool.query(
      `INSERT INTO raf_durable_calls (run_id, call_id, started_at) VALUES ($1, $2, $3)
       ON CONFLICT (run_id, call_id) DO UPDATE SET started_at = raf_durable_calls.started_at
       RETURNING started_at`,
      [runId, key, Date.now()],
    );
    return z.tuple([z.object({ started_at: z.coerce.number().int() })]).parse(rows)[0].started_at;
  }

  /**
   * The answer to a run's `pause`-th approval: `true` for exactly one caller, whose `deliver`
   * (the DBOS send of the answer, on the same connection) commits in the same transaction as the
   * claim. A caller that fails or dies before the commit leaves neither: the pause stays
   * unclaimed and answerable, never claimed with no answer sent. A second caller's insert waits
   * for the first's transaction, and wins only when that one rolled back.
   */
  async claimApproval(
    runId: string,
    pause: number,
    deliver: (db: pg.ClientBase) => Promise<void>,
  ): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rowCount } = await client.query(
        `INSERT INTO raf_durable_approvals (run_id, pause, claimed_at) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING`,
        [runId, pause, Date.now()],
      );
      if (rowCount === 1) await deliver(client);
      await client.query(rowCount === 1 ? 'COMMIT' : 'ROLLBACK');
      return rowCount === 1;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
