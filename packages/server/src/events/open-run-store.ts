import type { RafStore } from '@raf/framework';
import { SqliteSessionStore } from '@raf/framework';
import { InMemoryRunStore } from './memory-run-store.js';
import type { RunStore } from './run-store.js';

export interface OpenRunStoreOptions {
  signal?: AbortSignal;
}

/**
 * The run store beside a state store: in its SQLite file (on its connection) or its Postgres
 * database (so replicas on one Postgres serve each other's runs); with `memory:` and `file:`,
 * runs live in this process (one replica; a restart forgets them, the sessions stay).
 */
export async function openRunStore(store: RafStore, options: OpenRunStoreOptions = {}): Promise<RunStore> {
  options.signal?.throwIfAborted();
  const location = store.location;
  if (location.kind === 'sqlite' && store.sessions instanceof SqliteSessionStore) {
    const { SqliteRunStore } = await import('./sqlite-run-store.js');
    return new SqliteRunStore(store.sessions.database);
  }
  if (location.kind === 'postgres') {
    const { PostgresRunStore } = await import('./postgres-run-store.js');
    return PostgresRunStore.open(location.url, options);
  }
  return new InMemoryRunStore();
}
