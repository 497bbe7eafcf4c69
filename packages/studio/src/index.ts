import { fileURLToPath } from 'node:url';

/**
 * The folder of the built app (`index.html` and its assets) that `raf studio` serves. The same
 * relative path works from `src/` and from `dist/`, so tests from source find the built app too.
 */
export function studioAssetsDir(): string {
  return fileURLToPath(new URL('../dist/app/', import.meta.url));
}
