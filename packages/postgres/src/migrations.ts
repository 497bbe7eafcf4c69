import type { Pool } from 'pg';

/**
 * The schema, one step per version, never edited once released (a change is a new step). Run on
 * first use in one transaction under an advisory lock, so processes starting together apply each
 * step once.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE raf_sessions (id TEXT PRIMARY KEY, revision INTEGER NOT NULL, data TEXT NOT NULL);
   CREATE TABLE raf_session_journal (
     seq BIGSERIAL PRIMARY KEY, session_id TEXT NOT NULL, entry TEXT NOT NULL);
   CREATE INDEX raf_session_journal_by_session ON raf_session_journal (session_id, seq);
   CREATE TABLE raf_session_leases (
     session_id TEXT PRIMARY KEY, token TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,
     expires_at BIGINT NOT NULL);
   CREATE TABLE raf_session_claims (session_id TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (session_id, key));
   CREATE TABLE raf_governance (id INTEGER PRIMARY KEY CHECK (id = 1), data TEXT NOT NULL);
   CREATE TABLE raf_checkpoints (
     run_id TEXT NOT NULL, id TEXT NOT NULL, step INTEGER NOT NULL, fingerprint TEXT NOT NULL,
     parent_id TEXT, created_at TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, id));`,
  // 2: secret records (MCP OAuth tokens and registered clients, per tenant key).
  `CREATE TABLE raf_secrets (
     namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, key));`,
];

// Any constant: the key of the advisory lock the migrations run under.
const MIGRATION_LOCK = 0x72_61_66_01;

/** Applies the steps the database lacks; returns the schema version it is at. */
export async function migrate(pool: Pool): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS raf_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM raf_migrations',
    );
    const current = rows[0]?.version ?? 0;
    for (let version = current + 1; version <= MIGRATIONS.length; version += 1) {
      await client.query(MIGRATIONS[version - 1] ?? '');
      await client.query('INSERT INTO raf_migrations (version) VALUES ($1)', [version]);
    }
    await client.query('COMMIT');
    return Math.max(current, MIGRATIONS.length);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
