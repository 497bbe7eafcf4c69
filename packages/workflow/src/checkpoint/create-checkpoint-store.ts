import { join, resolve } from 'node:path';
import { ConfigError, parseStoreUrl, redactStoreUrl } from '@raf/core';
import type { CheckpointStore } from './checkpoint-store.js';
import { FileCheckpointStore } from './file-checkpoint-store.js';
import { InMemoryCheckpointStore } from './memory-checkpoint-store.js';

export interface OpenedCheckpointStore {
  store: CheckpointStore;
  close(): Promise<void>;
}

// A variable, so bundlers leave the optional package to be found at run time.
const POSTGRES_PACKAGE = '@raf/postgres';
const importByName = (name: string): Promise<unknown> => import(/* @vite-ignore */ name);

/**
 * The checkpoint store of a store URL (SPEC §14.1): `file:DIR` → `DIR/checkpoints`, `sqlite:PATH`
 * → the same SQLite file as the sessions, `postgres://…` → `@raf/postgres`, `memory:`.
 */
export async function createCheckpointStore(
  url: string,
  options: {
    cwd?: string;
    signal?: AbortSignal;
    importPackage?: (name: string) => Promise<unknown>;
    /** For `file:` stores: see `FileCheckpointStoreOptions.sweepTempFiles`. */
    sweepTempFiles?: (folder: string) => Promise<unknown>;
  } = {},
): Promise<OpenedCheckpointStore> {
  const location = parseStoreUrl(url);
  const cwd = options.cwd ?? process.cwd();
  switch (location.kind) {
    case 'memory':
      return { store: new InMemoryCheckpointStore(), close: async () => {} };
    case 'file':
      return {
        store: new FileCheckpointStore(
          join(resolve(cwd, location.directory), 'checkpoints'),
          options.sweepTempFiles ? { sweepTempFiles: options.sweepTempFiles } : {},
        ),
        close: async () => {},
      };
    case 'sqlite': {
      const { SqliteCheckpointStore } = await import('./sqlite/sqlite-checkpoint-store.js');
      const store = await SqliteCheckpointStore.open({ path: resolve(cwd, location.path) });
      return { store, close: async () => store.close() };
    }
    case 'postgres': {
      let module: {
        openPostgresStore(
          url: string,
          o?: { signal?: AbortSignal },
        ): Promise<{ checkpoints: CheckpointStore; close(): Promise<void> }>;
      };
      try {
        module = (await (options.importPackage ?? importByName)(POSTGRES_PACKAGE)) as typeof module;
      } catch (error) {
        const notFound =
          (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
          String(error).includes(POSTGRES_PACKAGE);
        if (!notFound) throw error;
        throw new ConfigError(
          `store ${redactStoreUrl(url)} needs @raf/postgres, which is not installed (pnpm add @raf/postgres)`,
          {
            cause: error,
          },
        );
      }
      const opened = await module.openPostgresStore(
        location.url,
        options.signal ? { signal: options.signal } : {},
      );
      return { store: opened.checkpoints, close: () => opened.close() };
    }
  }
}
