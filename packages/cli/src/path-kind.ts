import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CliError } from './io.js';

/**
 * An option naming a file (`--governance`, `--trace`) or a folder (`--sessions-dir`) that names
 * the other kind is refused before the command does anything, under the name the user typed.
 * A path that does not exist yet is fine: the command creates it.
 */
export async function refuseWrongKind(
  option: string,
  typed: string,
  cwd: string,
  wanted: { file: string } | 'folder',
): Promise<void> {
  const found = await stat(resolve(cwd, typed)).catch(() => undefined);
  if (!found || found.isDirectory() === (wanted === 'folder')) return;
  throw new CliError(
    wanted === 'folder'
      ? `${option} ${typed}: is a file, not a folder`
      : `${option} ${typed}: is a folder; give a file name such as ${wanted.file}`,
  );
}
