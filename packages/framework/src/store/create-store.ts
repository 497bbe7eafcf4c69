import { join, resolve } from 'node:path';
import {
  ConfigError,
  type ISessionStore,
  parseStoreUrl,
  redactStoreUrl,
  type SecretStore,
  type StoreLocation,
} from '@raf/core';
import {
  FileGovernanceStore,
  type GovernanceStore,
  InMemoryGovernanceStore,
} from '../runtime-policy/governance-store.js';
import { FileSessionStore } from '../sessions/file-session-store.js';
import { InMemorySessionStore } from './memory-session-store.js';
import { InMemorySecretStore } from './secret-stores.js';

/** All state of one store URL (SPEC §14.1); workflow checkpoints: `createCheckpointStore` of `@raf/workflow`. */
export interface RafStore {
  readonly location: StoreLocation;
  readonly sessions: ISessionStore;
  readonly governance: GovernanceStore;
  /**
   * Secret records (MCP OAuth tokens): `memory:`, `sqlite:` and `postgres://` stores. A `file:`
   * store has none: such records are files in its folder (`DIR/mcp-auth`).
   */
  readonly secrets?: SecretStore;
  /** Closes connections (SQLite file, Postgres pool). */
  close(): Promise<void>;
}

export interface CreateStoreOptions {
  /** Relative paths of `file:` and `sqlite:` resolve against it (default `process.cwd()`). */
  cwd?: string;
  /** `--sessions-dir DIR`: sessions in this folder instead of `<store>/sessions` (file store). */
  sessionsDirectory?: string;
  signal?: AbortSignal;
  /**
   * Loads an optional package by name (`@raf/postgres`); default: `import()` from here. The CLI
   * passes one that also looks in the agent's project.
   */
  importPackage?: (name: string) => Promise<unknown>;
}

/** What `@raf/postgres` exports for `createStore` (loaded by name, on demand). */
export interface PostgresStoreModule {
  openPostgresStore(url: string, options?: { signal?: AbortSignal }): Promise<RafStore>;
}

/**
 * Opens the store a URL names: `memory:`, `file:DIR` (default `.raf`: sessions in `DIR/sessions`,
 * governance in `DIR/governance.json`), `sqlite:PATH` (one file, needs `better-sqlite3`),
 * `postgres://…` (needs `@raf/postgres`).
 */
export async function createStore(url: string, options: CreateStoreOptions = {}): Promise<RafStore> {
  const location = parseStoreUrl(url);
  const cwd = options.cwd ?? process.cwd();
  switch (location.kind) {
    case 'memory':
      return {
        location,
        sessions: new InMemorySessionStore(),
        governance: new InMemoryGovernanceStore(),
        secrets: new InMemorySecretStore(),
        close: async () => {},
      };
    case 'file': {
      const dir = resolve(cwd, location.directory);
      return {
        location,
        sessions: new FileSessionStore(
          options.sessionsDirectory ? resolve(cwd, options.sessionsDirectory) : join(dir, 'sessions'),
        ),
        governance: new FileGovernanceStore(join(dir, 'governance.json')),
        close: async () => {},
      };
    }
    case 'sqlite': {
      const path = resolve(cwd, location.path);
      const { SqliteSessionStore } = await import('./sqlite-session-store.js');
      const { SqliteGovernanceStore } = await import('./sqlite-governance-store.js');
      const sessions = await SqliteSessionStore.open(path);
      const { SqliteSecretStore } = await import('./secret-stores.js');
      const governance = new SqliteGovernanceStore(sessions.database, path);
      const secrets = new SqliteSecretStore(sessions.database, path);
      return { location, sessions, governance, secrets, close: async () => sessions.close() };
    }
    case 'postgres': {
      let module: PostgresStoreModule;
      try {
        module = (await (options.importPackage ?? importByName)(POSTGRES_PACKAGE)) as PostgresStoreModule;
      } catch (error) {
        const notFound =
          (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
          String(error).includes(POSTGRES_PACKAGE);
        if (!notFound) throw error;
        throw new ConfigError(
          `store ${redactStoreUrl(url)} needs @raf/postgres, which is not installed (pnpm add @raf/postgres)`,
          { cause: error },
        );
      }
      return module.openPostgresStore(location.url, options.signal ? { signal: options.signal } : {});
    }
  }
}

// A variable, so bundlers leave the optional package to be found at run time.
const POSTGRES_PACKAGE = '@raf/postgres';
const importByName = (name: string): Promise<unknown> => import(/* @vite-ignore */ name);
