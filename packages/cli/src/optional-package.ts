import { installCommand, isMissingPackage } from '@raf/decl';
import { CliError, EXIT } from './io.js';

/**
 * An optional package a command needs (`@raf/studio` for `raf studio`, `@raf/mcp` for `raf mcp
 * serve`, OpenTelemetry for `--trace`), loaded by `load`; missing, the command fails with exit 2
 * naming the package and the install command of the user's package manager.
 */
export async function importOptional<T>(
  names: readonly string[],
  what: string,
  load: () => Promise<T>,
  cwd: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = names.filter((name) => isMissingPackage(error, name));
    if (missing.length === 0) throw error;
    throw new CliError(
      `${what} needs ${names.join(', ')} (${installCommand(names.join(' '), cwd)})`,
      EXIT.config,
    );
  }
}
