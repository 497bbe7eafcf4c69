import {
  type AcquireLeaseOptions,
  foldJournal,
  type ISessionStore,
  SessionError,
  type SessionJournal,
  type SessionLease,
  type SessionSaveOptions,
  type SessionSnapshot,
} from '@raf/core';
import { sessionStoreKit as kit, safeParseSessionSnapshot } from '@raf/framework';
import type { Pool, PoolClient } from 'pg';
import type { LeaseWakeups } from './lease-wakeups.js';

/** Runs `body` in one transaction on a pooled connection. */
export async function inTransaction<T>(pool: Pool, body: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Sessions on PostgreSQL: snapshot rows with a revision (compare-and-set in the `UPDATE … WHERE
 * revision`), journal rows appended one statement per step and removed in the save's transaction,
 * lease rows taken over when their holder is gone, claims as a primary key.
 */
export class PostgresSessionStore implements ISessionStore {
  /** The lease duration of each lease this instance handed out (a fenced append renews it). */
  private readonly ttls = new WeakMap<SessionLease, number>();

  constructor(
    private readonly pool: Pool,
    private readonly wakeups: LeaseWakeups,
  ) {}

  /**
   * Whether `lease` still holds its session (its token in the lease row), renewing it. The UPDATE
   * locks the row until the caller's transaction commits, so a takeover (an UPDATE of the same row)
   * waits for that write or, having committed first, makes this match nothing: a turn whose lease
   * expired and was taken never writes after the taker.
   */
  private async holds(client: PoolClient, lease: SessionLease): Promise<boolean> {
    const ttl = this.ttls.get(lease) ?? kit.leaseTtl({});
    const held = await client.query(
      'UPDATE raf_session_leases SET expires_at = $3 WHERE session_id = $1 AND token = $2',
      [lease.sessionId, lease.token, Date.now() + ttl],
    );
    return held.rowCount === 1;
  }

  async load(id: string): Promise<SessionSnapshot | undefined> {
    const { row, journal } = await inTransaction(this.pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const snapshot = await client.query<{ revision: number; data: string }>(
        'SELECT revision, data FROM raf_sessions WHERE id = $1',
        [id],
      );
      const entries = await client.query<{ seq: string; entry: string }>(
        'SELECT seq, entry FROM raf_session_journal WHERE session_id = $1 ORDER BY seq',
        [id],
      );
      return { row: snapshot.rows[0], journal: entries.rows };
    });
    if (!row && journal.length === 0) return undefined;
    const source = `session ${id} in PostgreSQL`;
    let base = kit.emptySnapshot(id);
    if (row) {
      const parsed = safeParseSessionSnapshot(parseJson(row.data, source), source);
      if (!parsed.success) throw parsed.error;
      base = parsed.value;
    }
    const entries = journal.map((j) => {
      const where = `${source}, journal entry ${j.seq}`;
      return kit.parseJournalEntry(parseJson(j.entry, where), where);
    });
    return { ...foldJournal(base, entries), revision: row?.revision ?? 0 };
  }

  async save(snapshot: SessionSnapshot, options: SessionSaveOptions = {}): Promise<number> {
    const { revision: _r, ...rest } = snapshot;
    const data = JSON.stringify(rest);
    const expected = options.expectedRevision;
    const { lease } = options;
    return inTransaction(this.pool, async (client) => {
      if (lease && !(await this.holds(client, lease))) throw kit.leaseLost(snapshot.id);
      const result =
        expected === undefined
          ? await client.query<{ revision: number }>(
              `INSERT INTO raf_sessions (id, revision, data) VALUES ($1, 1, $2)
               ON CONFLICT (id) DO UPDATE SET revision = raf_sessions.revision + 1, data = EXCLUDED.data
               RETURNING revision`,
              [snapshot.id, data],
            )
          : expected === 0
            ? await client.query<{ revision: number }>(
                'INSERT INTO raf_sessions (id, revision, data) VALUES ($1, 1, $2) ON CONFLICT (id) DO NOTHING RETURNING revision',
                [snapshot.id, data],
              )
            : await client.query<{ revision: number }>(
                'UPDATE raf_sessions SET revision = revision + 1, data = $2 WHERE id = $1 AND revision = $3 RETURNING revision',
                [snapshot.id, data, expected],
              );
      const revision = result.rows[0]?.revision;
      if (revision === undefined) {
        const stored = await client.query<{ revision: number }>(
          'SELECT revision FROM raf_sessions WHERE id = $1',
          [snapshot.id],
        );
        kit.checkRevision(snapshot.id, stored.rows[0]?.revision ?? 0, expected);
        throw new SessionError(`session ${snapshot.id} was not saved`);
      }
      await client.query('DELETE FROM raf_session_journal WHERE session_id = $1', [snapshot.id]);
      return revision;
    });
  }

  async delete(id: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM raf_sessions WHERE id = $1', [id]);
      await client.query('DELETE FROM raf_session_journal WHERE session_id = $1', [id]);
      await client.query('DELETE FROM raf_session_claims WHERE session_id = $1', [id]);
    });
  }

  async list(): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT id FROM raf_sessions UNION SELECT DISTINCT session_id FROM raf_session_journal ORDER BY 1',
    );
    return rows.map((r) => r.id);
  }

  async acquireLease(id: string, options: AcquireLeaseOptions = {}): Promise<SessionLease> {
    const ttl = kit.leaseTtl(options);
    const holder = kit.newHolder(Date.now(), ttl);
    const values = [id, holder.token, holder.pid, holder.host, holder.expiresAt];
    await kit.waitForLease(
      id,
      options,
      async () => {
        const taken = await this.pool.query(
          `INSERT INTO raf_session_leases (session_id, token, pid, host, expires_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (session_id) DO NOTHING`,
          values,
        );
        if (taken.rowCount === 1) return true;
        const { rows } = await this.pool.query<{
          token: string;
          pid: number;
          host: string;
          expires_at: string;
        }>('SELECT token, pid, host, expires_at FROM raf_session_leases WHERE session_id = $1', [id]);
        const seen = rows[0];
        if (!seen || kit.holderAlive({ pid: seen.pid, host: seen.host, expiresAt: Number(seen.expires_at) }))
          return undefined;
        // Taken over only if the dead holder's row is still the one seen (one taker wins).
        const over = await this.pool.query(
          'UPDATE raf_session_leases SET token = $2, pid = $3, host = $4, expires_at = $5 WHERE session_id = $1 AND token = $6',
          [...values, seen.token],
        );
        return over.rowCount === 1 ? true : undefined;
      },
      (signal) => this.wakeups.next(id, signal),
    );
    const stopRenewing = kit.renewEvery(async () => {
      await this.pool.query(
        'UPDATE raf_session_leases SET expires_at = $3 WHERE session_id = $1 AND token = $2',
        [id, holder.token, Date.now() + ttl],
      );
    }, ttl);
    let released = false;
    const lease: SessionLease = {
      sessionId: id,
      token: holder.token,
      release: async () => {
        if (released) return;
        released = true;
        stopRenewing();
        await this.pool.query(
          `WITH gone AS (DELETE FROM raf_session_leases WHERE session_id = $1 AND token = $2 RETURNING session_id)
           SELECT pg_notify('raf_session_lease', session_id) FROM gone`,
          [id, holder.token],
        );
      },
    };
    this.ttls.set(lease, ttl);
    return lease;
  }

  async openJournal(lease: SessionLease): Promise<SessionJournal> {
    const id = lease.sessionId;
    return {
      append: async (entries, options = {}) => {
        options.signal?.throwIfAborted();
        await inTransaction(this.pool, async (client) => {
          // The fence, in the append's transaction (see `holds`).
          if (!(await this.holds(client, lease))) throw kit.leaseLost(id);
          if (entries.length === 0) return;
          // One statement: the entries land together or not at all, in order.
          await client.query(
            'INSERT INTO raf_session_journal (session_id, entry) SELECT $1, e FROM unnest($2::text[]) WITH ORDINALITY AS t(e, n) ORDER BY n',
            [id, entries.map((e) => JSON.stringify(e))],
          );
        });
      },
    };
  }

  async claimApproval(id: string, key: string): Promise<boolean> {
    const result = await this.pool.query(
      'INSERT INTO raf_session_claims (session_id, key) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [id, key],
    );
    return result.rowCount === 1;
  }
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SessionError(`${source} is not valid JSON`, { cause: error });
  }
}
