import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Exports = string | { import?: Exports; default?: Exports; '.'?: Exports } | undefined;

function importTarget(exports: Exports): string | undefined {
  if (typeof exports === 'string') return exports;
  if (!exports) return undefined;
  return importTarget(exports['.'] ?? exports.import ?? exports.default);
}

/**
 * The entry of `name` installed in `folder`'s project (its own or an enclosing `node_modules`):
 * a globally installed `raf` finds the extensions the agent's project installed.
 */
function resolveInProject(name: string, folder: string): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    const root = join(dir, 'node_modules', name);
    try {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        exports?: Exports;
        main?: string;
      };
      const entry = importTarget(manifest.exports) ?? manifest.main;
      if (entry) return pathToFileURL(join(root, entry)).href;
    } catch {}
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Where the package `name` is installed: where `resolveHere` finds it (default: from this
 * module; a caller passes `(n) => import.meta.resolve(n)` to look from its own), else in the
 * agent's project; undefined when nowhere.
 */
export function locateExtension(
  name: string,
  projectFolder: string,
  resolveHere: (name: string) => string = (n) => import.meta.resolve(n),
): string | undefined {
  try {
    return resolveHere(name);
  } catch {
    return resolveInProject(name, projectFolder);
  }
}
