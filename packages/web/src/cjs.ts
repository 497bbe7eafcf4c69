import { createRequire } from 'node:module';

/**
 * CommonJS dependencies (`export =`), loaded with `require` so that a program compiling this
 * package from source needs neither `allowSyntheticDefaultImports` nor special settings.
 */
export const requireCjs = createRequire(import.meta.url);
