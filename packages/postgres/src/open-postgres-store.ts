import { ConfigError, redactStoreUrl } from '@raf/core';
import type { RafStore } from '@raf/framework';
import type { CheckpointStore } from '@raf/workflow';
import pg from 'pg';
import { LeaseWakeups } from './lease-wakeups.js';
import { migrate } from './migrations.js';
import { PostgresCheckpointStore } from './postgres-checkpoint-store.js';
import { PostgresGovernanceStore } from './postgres-governance-store.js';
import { PostgresSecretStore } from './postgres-secret-store.js';
import { PostgresSessionStore } from './postgres-session-store.js';

export interface PostgresStore extends RafStore {
  readonly checkpoints: CheckpointStore;
  /** The schema version after the migrations ran. */
  readonly schemaVersion: number;
}

export interface OpenPostgresStoreOptions {
  signal?: AbortSignal;
  /** Connections in the pool (default 4). */
  maxConnections?: number;
}

/**
 * Opens `postgres://…`: a `pg` pool, the migrations the database lacks (versioned, run once under
 * an advisory lock), and the session, governance and checkpoint stores on it.
 */
export async function openPostgresStore(
  url: string,
  options: OpenPostgresStoreOptions = {},
): Promise<PostgresStore> {
  options.signal?.throwIfAborted();
  const config: pg.ClientConfig = { connectionString: url };
  const pool = new pg.Pool({ ...config, max: options.maxConnections ?? 4 });
  // An idle connection the server drops must not crash the process.
  pool.on('error', () => undefined);
  let schemaVersion: number;
  try {
    schemaVersion = await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new ConfigError(`cannot open the store ${redactStoreUrl(url)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const wakeups = new LeaseWakeups(config);
  return {
    location: { kind: 'postgres', url },
    sessions: new PostgresSessionStore(pool, wakeups),
    governance: new PostgresGovernanceStore(pool),
    secrets: new PostgresSecretStore(pool),
    checkpoints: new PostgresCheckpointStore(pool),
    schemaVersion,
    close: async () => {
      await wakeups.close();
      await pool.end();
    },
  };
}
