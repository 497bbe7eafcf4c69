import { createRequire } from 'node:module';
import { ConfigError } from '@raf/core';

const require = createRequire(import.meta.url);
let fromFramework: NodeJS.Require | undefined;

/** Node's resolver from here, else from `@raf/framework` (see `lazyRequire`). */
function resolvers(): NodeJS.Require[] {
  try {
    fromFramework ??= createRequire(require.resolve('@raf/framework/package.json'));
  } catch {
    return [require];
  }
  return [require, fromFramework];
}

/**
 * A dependency loaded on first use, synchronously. The file tools' libraries (glob, diff, shell
 * parsing, JSON Schema) are not needed to build or inspect an agent, and a CLI's cold start pays
 * for every module it imports. When this code is bundled into another package (the `raf`
 * binary), the dependency is found through `@raf/framework`, which declares it.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded !== undefined) return loaded;
    try {
      loaded = require(id) as T;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
      fromFramework ??= createRequire(require.resolve('@raf/framework/package.json'));
      loaded = fromFramework(id) as T;
    }
    return loaded;
  };
}

/**
 * Whether an optional peer (`minisearch`, `re2js`) is installed where `lazyRequire` and the
 * walker's worker would load it from. Resolving reads a few `package.json` files and loads nothing.
 */
export function isInstalled(id: string): boolean {
  for (const resolver of resolvers()) {
    try {
      resolver.resolve(id);
      return true;
    } catch {
      // Not from here: the next resolver, or not installed.
    }
  }
  return false;
}

/**
 * `lazyRequire` for an optional peer of the framework: missing, the feature that needs it fails
 * with an error naming the package and its install command (not Node's "cannot find module").
 */
export function optionalRequire<T>(id: string, feature: string): () => T {
  const load = lazyRequire<T>(id);
  return () => {
    try {
      return load();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && !isInstalled(id))
        throw missingPeerError(id, feature, error);
      throw error;
    }
  };
}

/** `memory_recall needs minisearch, an optional peer of @raf/framework (npm install minisearch)`. */
export function missingPeerError(id: string, feature: string, cause?: unknown): ConfigError {
  return new ConfigError(`${feature} needs ${id}, an optional peer of @raf/framework (npm install ${id})`, {
    ...(cause !== undefined && { cause }),
  });
}
