import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A dependency loaded on first use, synchronously. The file tools' libraries (glob, diff, shell
 * parsing, JSON Schema) are not needed to build or inspect an agent, and a CLI's cold start pays
 * for every module it imports.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(id) as T;
    return loaded;
  };
}
