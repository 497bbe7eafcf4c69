import { ConfigError } from '@raf/core';
import type BetterSqlite3 from 'better-sqlite3';
import {
  type Checkpoint,
  type CheckpointInfo,
  type CheckpointStore,
  parseCheckpoint,
} from '../checkpoint-store.js';

export interface SqliteCheckpointStoreOptions {
  /** The database file (created if missing); `:memory:` for a private in-memory database. */
  path: string;
}

const CREATE = `CREATE TABLE IF NOT EXISTS raf_checkpoints (
  run_id TEXT NOT NULL, id TEXT NOT NULL, step INTEGER NOT NULL, fingerprint TEXT NOT NULL,
  parent_id TEXT, created_at TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, id))`;

interface Row {
  id: string;
  run_id: string;
  step: number;
  fingerprint: string;
  parent_id: string | null;
  created_at: string;
  data: string;
}

/**
 * Checkpoints of many runs in one SQLite file (WAL, one transaction per save). Needs the
 * optional peer dependency `better-sqlite3`: `await SqliteCheckpointStore.open({ path })`.
 */
export class SqliteCheckpointStore implements CheckpointStore {
  private constructor(
    private readonly db: BetterSqlite3.Database,
    readonly path: string,
    private readonly ownsDatabase: boolean,
  ) {}

  /** Checkpoints in a database another store of the same `sqlite:` file opened (it stays open). */
  static on(db: BetterSqlite3.Database, path: string): SqliteCheckpointStore {
    db.exec(CREATE);
    return new SqliteCheckpointStore(db, path, false);
  }

  static async open(options: SqliteCheckpointStoreOptions): Promise<SqliteCheckpointStore> {
    let Database: typeof BetterSqlite3;
    try {
      Database = ((await import('better-sqlite3')) as unknown as { default: typeof BetterSqlite3 }).default;
    } catch (error) {
      throw new ConfigError(
        'SqliteCheckpointStore needs better-sqlite3 (pnpm add better-sqlite3); or use FileCheckpointStore',
        { cause: error },
      );
    }
    const db = new Database(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec(CREATE);
    return new SqliteCheckpointStore(db, options.path, true);
  }

  async save(checkpoint: Checkpoint): Promise<void> {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO raf_checkpoints (run_id, id, step, fingerprint, parent_id, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        checkpoint.runId,
        checkpoint.id,
        checkpoint.step,
        checkpoint.fingerprint,
        checkpoint.parentId ?? null,
        checkpoint.createdAt,
        JSON.stringify(checkpoint),
      );
  }

  async load(runId: string, checkpointId?: string): Promise<Checkpoint | undefined> {
    const row = (
      checkpointId === undefined
        ? this.db
            .prepare('SELECT data FROM raf_checkpoints WHERE run_id = ? ORDER BY id DESC LIMIT 1')
            .get(runId)
        : this.db
            .prepare('SELECT data FROM raf_checkpoints WHERE run_id = ? AND id = ?')
            .get(runId, checkpointId)
    ) as Pick<Row, 'data'> | undefined;
    return row ? parseCheckpoint(row.data, `checkpoint of run ${runId} in ${this.path}`) : undefined;
  }

  async list(runId: string): Promise<CheckpointInfo[]> {
    const rows = this.db
      .prepare(
        'SELECT id, run_id, step, fingerprint, parent_id, created_at, length(CAST(data AS BLOB)) AS bytes FROM raf_checkpoints WHERE run_id = ? ORDER BY id',
      )
      .all(runId) as (Omit<Row, 'data'> & { bytes: number })[];
    return rows.map((r) => ({
      id: r.id,
      runId: r.run_id,
      step: r.step,
      fingerprint: r.fingerprint,
      ...(r.parent_id !== null && { parentId: r.parent_id }),
      createdAt: r.created_at,
      byteSize: r.bytes,
    }));
  }

  async prune(runId: string, keep: number): Promise<number> {
    const result = this.db
      .prepare(
        'DELETE FROM raf_checkpoints WHERE run_id = ? AND id NOT IN (SELECT id FROM raf_checkpoints WHERE run_id = ? ORDER BY id DESC LIMIT ?)',
      )
      .run(runId, runId, Math.max(0, keep));
    return result.changes;
  }

  async delete(runId: string): Promise<void> {
    this.db.prepare('DELETE FROM raf_checkpoints WHERE run_id = ?').run(runId);
  }

  async runs(): Promise<string[]> {
    return (
      this.db.prepare('SELECT DISTINCT run_id FROM raf_checkpoints ORDER BY run_id').all() as {
        run_id: string;
      }[]
    ).map((r) => r.run_id);
  }

  close(): void {
    if (this.ownsDatabase) this.db.close();
  }
}
