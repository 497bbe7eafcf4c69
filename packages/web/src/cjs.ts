import { createRequire } from 'node:module';

/**
 * CommonJS dependencies (`export =`), loaded with `require` so that a program compiling this
 * package from source needs neither `allowSyntheticDefaultImports` nor special settings.
 */
export const requireCjs = createRequire(import.meta.url);

/** A CommonJS dependency required on first use: importing this package stays cheap (CLI start). */
export function lazyCjs<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= requireCjs(id) as T;
    return loaded;
  };
}
