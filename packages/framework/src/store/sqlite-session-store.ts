import {
  type AcquireLeaseOptions,
  ConfigError,
  foldJournal,
  type ISessionStore,
  SessionConflictError,
  SessionError,
  type SessionJournal,
  type SessionLease,
  type SessionSaveOptions,
  type SessionSnapshot,
} from '@raf/core';
import type BetterSqlite3 from 'better-sqlite3';
import { parseJournalEntry, safeParseSessionSnapshot } from '../sessions/session-snapshot-schema.js';
import { holderAlive, leaseLost, leaseTtl, newHolder, renewEvery, waitForLease } from './lease-holder.js';
import { checkRevision, emptySnapshot } from './store-common.js';

/** How long a writer waits for SQLite's write lock before it says what is locked. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/** Opens `path` for the stores (WAL, synchronous=NORMAL: a committed write survives a kill -9). */
export async function openSqlite(path: string): Promise<BetterSqlite3.Database> {
  let Database: typeof BetterSqlite3;
  try {
    Database = ((await import('better-sqlite3')) as unknown as { default: typeof BetterSqlite3 }).default;
  } catch (error) {
    throw new ConfigError(
      'the sqlite: store needs better-sqlite3 (pnpm add better-sqlite3); or use file:DIR',
      {
        cause: error,
      },
    );
  }
  try {
    const db = new Database(path, { timeout: SQLITE_BUSY_TIMEOUT_MS });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    return db;
  } catch (error) {
    throw lockedOr(error, path, `cannot open the SQLite store ${path}`);
  }
}

/** SQLite's `database is locked` after the busy timeout, said as what is locked (CLI exit 5). */
export function lockedOr(error: unknown, path: string, what: string, sessionId = ''): Error {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
    return new SessionConflictError(
      sessionId,
      'lease',
      `${what}: ${path} is locked by another writer (waited ${SQLITE_BUSY_TIMEOUT_MS / 1000} s)`,
      { cause: error },
    );
  return new SessionError(`${what}: ${(error as Error).message}`, { cause: error });
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS raf_sessions (id TEXT PRIMARY KEY, revision INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS raf_session_journal (
  session_id TEXT NOT NULL, seq INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS raf_session_journal_by_session ON raf_session_journal (session_id, seq);
CREATE TABLE IF NOT EXISTS raf_session_leases (
  session_id TEXT PRIMARY KEY, token TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS raf_session_claims (session_id TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (session_id, key));
`;

/**
 * Sessions, their journal, leases and claims in one SQLite file (`sqlite:PATH`). Every write is
 * one `BEGIN IMMEDIATE` transaction with the busy timeout; a save replaces the snapshot and clears
 * the journal in the same transaction. Needs the optional peer `better-sqlite3`.
 */
export class SqliteSessionStore implements ISessionStore {
  /** The lease duration of each lease this instance handed out (a fenced append renews it). */
  private readonly ttls = new WeakMap<SessionLease, number>();

  private constructor(
    private readonly db: BetterSqlite3.Database,
    readonly path: string,
  ) {}

  /** The connection, for the other stores of the same file (governance, checkpoints). */
  get database(): BetterSqlite3.Database {
    return this.db;
  }

  static async open(path: string): Promise<SqliteSessionStore> {
    const db = await openSqlite(path);
    const store = new SqliteSessionStore(db, path);
    store.write('', 'cannot prepare the SQLite store', () => db.exec(SCHEMA));
    return store;
  }

  private write<T>(id: string, what: string, body: () => T): T {
    try {
      return this.db.transaction(body).immediate();
    } catch (error) {
      if (SessionConflictError.isInstance(error) || SessionError.isInstance(error)) throw error;
      throw lockedOr(error, this.path, what, id);
    }
  }

  /** Whether `lease` still holds its session (its token in the lease row); renews it if so. Inside a write transaction. */
  private holds(lease: SessionLease): boolean {
    const ttl = this.ttls.get(lease) ?? leaseTtl({});
    return (
      this.db
        .prepare('UPDATE raf_session_leases SET expires_at = ? WHERE session_id = ? AND token = ?')
        .run(Date.now() + ttl, lease.sessionId, lease.token).changes === 1
    );
  }

  async load(id: string): Promise<SessionSnapshot | undefined> {
    const read = this.db.transaction(() => {
      const row = this.db.prepare('SELECT revision, data FROM raf_sessions WHERE id = ?').get(id) as
        | { revision: number; data: string }
        | undefined;
      const journal = this.db
        .prepare('SELECT seq, entry FROM raf_session_journal WHERE session_id = ? ORDER BY seq')
        .all(id) as { seq: number; entry: string }[];
      return { row, journal };
    });
    const { row, journal } = read.deferred();
    if (!row && journal.length === 0) return undefined;
    const source = `session ${id} in ${this.path}`;
    let base = emptySnapshot(id);
    if (row) {
      const parsed = safeParseSessionSnapshot(JSON.parse(row.data), source);
      if (!parsed.success) throw parsed.error;
      base = parsed.value;
    }
    const entries = journal.map((j) =>
      parseJournalEntry(JSON.parse(j.entry), `${source}, journal entry ${j.seq}`),
    );
    return { ...foldJournal(base, entries), revision: row?.revision ?? 0 };
  }

  async save(snapshot: SessionSnapshot, options: SessionSaveOptions = {}): Promise<number> {
    const { revision: _r, ...rest } = snapshot;
    const { lease } = options;
    return this.write(snapshot.id, `cannot save session ${snapshot.id}`, () => {
      if (lease && !this.holds(lease)) throw leaseLost(snapshot.id);
      const row = this.db.prepare('SELECT revision FROM raf_sessions WHERE id = ?').get(snapshot.id) as
        | { revision: number }
        | undefined;
      const stored = row?.revision ?? 0;
      checkRevision(snapshot.id, stored, options.expectedRevision);
      this.db
        .prepare('INSERT OR REPLACE INTO raf_sessions (id, revision, data) VALUES (?, ?, ?)')
        .run(snapshot.id, stored + 1, JSON.stringify(rest));
      this.db.prepare('DELETE FROM raf_session_journal WHERE session_id = ?').run(snapshot.id);
      return stored + 1;
    });
  }

  async delete(id: string): Promise<void> {
    this.write(id, `cannot delete session ${id}`, () => {
      for (const table of ['raf_sessions', 'raf_session_journal', 'raf_session_claims'])
        this.db
          .prepare(`DELETE FROM ${table} WHERE ${table === 'raf_sessions' ? 'id' : 'session_id'} = ?`)
          .run(id);
    });
  }

  async list(): Promise<string[]> {
    return (
      this.db
        .prepare(
          'SELECT id FROM raf_sessions UNION SELECT DISTINCT session_id FROM raf_session_journal ORDER BY 1',
        )
        .all() as { id: string }[]
    ).map((r) => r.id);
  }

  async acquireLease(id: string, options: AcquireLeaseOptions = {}): Promise<SessionLease> {
    const ttl = leaseTtl(options);
    const holder = newHolder(Date.now(), ttl);
    await waitForLease(id, options, async () =>
      this.write(id, `cannot take session ${id}`, () => {
        const row = this.db
          .prepare('SELECT pid, host, expires_at AS expiresAt FROM raf_session_leases WHERE session_id = ?')
          .get(id) as { pid: number; host: string; expiresAt: number } | undefined;
        if (row && holderAlive(row)) return undefined;
        this.db
          .prepare(
            'INSERT OR REPLACE INTO raf_session_leases (session_id, token, pid, host, expires_at) VALUES (?, ?, ?, ?, ?)',
          )
          .run(id, holder.token, holder.pid, holder.host, holder.expiresAt);
        return true;
      }),
    );
    const stopRenewing = renewEvery(async () => {
      this.write(id, `cannot renew the lease of session ${id}`, () =>
        this.db
          .prepare('UPDATE raf_session_leases SET expires_at = ? WHERE session_id = ? AND token = ?')
          .run(Date.now() + ttl, id, holder.token),
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
        this.write(id, `cannot release session ${id}`, () =>
          this.db
            .prepare('DELETE FROM raf_session_leases WHERE session_id = ? AND token = ?')
            .run(id, holder.token),
        );
      },
    };
    this.ttls.set(lease, ttl);
    return lease;
  }

  async openJournal(lease: SessionLease): Promise<SessionJournal> {
    const id = lease.sessionId;
    const insert = this.db.prepare('INSERT INTO raf_session_journal (session_id, entry) VALUES (?, ?)');
    // The fence: the lease row still carries this turn's token. Checked in the append's own
    // IMMEDIATE transaction, so no takeover (also a write transaction) can come between the check
    // and the rows; the row's expiry is pushed forward too (the holder is evidently running).
    return {
      append: async (entries, options = {}) => {
        options.signal?.throwIfAborted();
        this.write(id, `cannot journal session ${id}`, () => {
          if (!this.holds(lease)) throw leaseLost(id);
          for (const entry of entries) insert.run(id, JSON.stringify(entry));
        });
      },
    };
  }

  async claimApproval(id: string, key: string): Promise<boolean> {
    return this.write(
      id,
      `cannot claim the approval of session ${id}`,
      () =>
        this.db
          .prepare('INSERT OR IGNORE INTO raf_session_claims (session_id, key) VALUES (?, ?)')
          .run(id, key).changes === 1,
    );
  }

  close(): void {
    this.db.close();
  }
}
