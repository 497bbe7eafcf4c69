import { fileURLToPath } from 'node:url';

/** Relative to this module, in `src/` or in `dist/`. */
const APP_FOLDER = '../dist/app/';

/**
 * The folder of the built app (`index.html` and its assets) that `raf studio` serves. The same
 * relative path works from `src/` and from `dist/`, so tests from source find the built app too.
 */
export function studioAssetsDir(): string {
  return fileURLToPath(new URL(APP_FOLDER, import.meta.url));
}
