import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let fromFramework: NodeJS.Require | undefined;

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
