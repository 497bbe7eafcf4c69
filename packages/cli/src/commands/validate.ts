import { type Diagnostic, formatDiagnostic } from '@raf/decl';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { asTyped, builderFor } from '../load-agent.js';
import { escapeJson, escapeText } from '../render/escape.js';

const plain = ({ file, line, column, path, message }: Diagnostic) => ({ file, line, column, path, message });

/** `raf validate <file>…`: every problem with file:line:col; exit 2 when any file has errors. */
export async function validateCommand(args: CliArgs, io: CliIO): Promise<number> {
  if (args.files.length === 0)
    throw new CliError('raf validate needs an agent file: raf validate agent.yaml');
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const modes: string[] = [];
  for (const file of args.files) {
    // Unknown keys are errors unless --lenient (as in every command: `builderFor`); what the
    // upstream only warns about (a missing skills folder) is an error with --strict.
    const report = await (await builderFor(file, args, io)).validate();
    errors.push(...asTyped(report.errors, file, io.cwd));
    warnings.push(...asTyped(report.warnings, file, io.cwd));
    if (report.orchestration) modes.push(`${file}: ${report.orchestration}`);
  }
  if (args.json) {
    io.stdout.write(
      `${escapeJson(JSON.stringify({ ok: errors.length === 0, errors: errors.map(plain), warnings: warnings.map(plain), ...(modes.length > 0 && { orchestration: modes }) }))}\n`,
    );
  } else {
    for (const d of errors) io.stderr.write(`error: ${escapeText(formatDiagnostic(d))}\n`);
    for (const d of warnings) io.stderr.write(`warning: ${escapeText(formatDiagnostic(d))}\n`);
    for (const mode of modes) io.stdout.write(`${escapeText(mode)}\n`);
    if (errors.length === 0)
      io.stdout.write(
        `ok: ${args.files.join(', ')}${warnings.length ? ` (${warnings.length} warning${warnings.length > 1 ? 's' : ''})` : ''}\n`,
      );
  }
  return errors.length > 0 ? EXIT.config : EXIT.ok;
}
