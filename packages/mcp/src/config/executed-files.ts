import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { McpServerSpec } from './server-spec.js';

/**
 * The files a stdio server runs, as far as its entry says: the command when written as a path
 * (`./server.sh`, `/opt/srv/bin`), and every argument that names an existing regular file from the
 * server's folder (`./server.mjs`, `dist/index.js`, the path in `--script=./s.py`). A bare command
 * (`node`, `npx`) is looked up on PATH and is not listed; neither are the modules a script
 * imports, which only its runtime knows. HTTP servers run nothing here: none.
 */
export async function executedFiles(spec: McpServerSpec): Promise<string[]> {
  if (spec.transport !== 'stdio') return [];
  const candidates = new Set<string>();
  if (spec.command.includes('/')) candidates.add(resolve(spec.cwd, spec.command));
  for (const arg of spec.args) {
    const value = arg.startsWith('-') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
    // A package name (`@scope/server`), a flag or a URL is not a file of this machine.
    if (value === '' || value.startsWith('-') || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) continue;
    candidates.add(isAbsolute(value) ? value : resolve(spec.cwd, value));
  }
  const files = await Promise.all(
    [...candidates].map(async (path) =>
      (await stat(path).catch(() => undefined))?.isFile() ? path : undefined,
    ),
  );
  return files.filter((path): path is string => path !== undefined);
}
