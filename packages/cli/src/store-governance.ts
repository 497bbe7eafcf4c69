import { join, resolve } from 'node:path';
import type { SecretStore } from '@raf/core';
import { parseStoreUrl } from '@raf/core';
import type { GovernanceStore } from '@raf/framework';
import type { CliArgs } from './args.js';
import type { CliIO } from './io.js';
import { storeChoice } from './store-choice.js';

// Apart from `store-choice.ts`: it opens the store (`opened-session.ts`, loaded on first use),
// which itself reads the choice, so the two would import each other.

/**
 * Where governance lives when a store was chosen by URL (`--store`, `RAF_STORE`): the file store's
 * `governance.json`, or the SQLite/Postgres store, opened for each read or write and closed after.
 * Undefined: the default (`.raf/governance.json` beside the agent file, or `--governance FILE`).
 */
export function storeGovernance(args: CliArgs, io: CliIO): GovernanceStore | string | undefined {
  const choice = storeChoice(args, io);
  if (choice.sessionsDirectory !== undefined) return undefined;
  const location = parseStoreUrl(choice.url);
  if (location.kind === 'file') return join(resolve(io.cwd, location.directory), 'governance.json');
  if (location.kind === 'memory') return undefined;
  const withStore = async <T>(body: (governance: GovernanceStore) => Promise<T>): Promise<T> => {
    const store = await (await import('./opened-session.js')).openCliStore(args, io);
    try {
      return await body(store.governance);
    } finally {
      await store.close();
    }
  };
  return {
    load: (options) => withStore((g) => g.load(options)),
    save: (data, options) => withStore((g) => g.save(data, options)),
  };
}

/**
 * The secret records of a store chosen by URL that has them (`sqlite:`, `postgres://`), opened for
 * each read or write and closed after: `@raf/mcp` keeps OAuth tokens there (`raf mcp login
 * --store`), where every run on that store finds them. Undefined for a file store (its folder's
 * `mcp-auth`) and the default.
 */
export function storeSecrets(args: CliArgs, io: CliIO): SecretStore | undefined {
  const choice = storeChoice(args, io);
  if (choice.sessionsDirectory !== undefined) return undefined;
  const kind = parseStoreUrl(choice.url).kind;
  if (kind !== 'sqlite' && kind !== 'postgres') return undefined;
  const withStore = async <T>(body: (secrets: SecretStore) => Promise<T>): Promise<T> => {
    const store = await (await import('./opened-session.js')).openCliStore(args, io);
    try {
      if (!store.secrets) throw new Error(`the store ${kind}: keeps no secret records`);
      return await body(store.secrets);
    } finally {
      await store.close();
    }
  };
  return {
    get: (namespace, key) => withStore((s) => s.get(namespace, key)),
    set: (namespace, key, value) => withStore((s) => s.set(namespace, key, value)),
    delete: (namespace, key) => withStore((s) => s.delete(namespace, key)),
  };
}
