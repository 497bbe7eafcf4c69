import { scopeRoots, type WorkspaceScope } from '@raf/core';
import { z } from 'zod';
import { BuiltinTool } from './builtin-tool.js';
import { allowedCommandsOf, isCommandAllowed } from './command-allowlist.js';
import { formatCommandOutput } from './command-output.js';
import { ToolFailure } from './tool-failure.js';

export const DEFAULT_TIMEOUT_SECS = 30;
const MAX_TIMEOUT_SECS = 3600;

const parameters = z.object({
  command: z.string().min(1).describe('Shell command, run with `sh -c` in a fresh shell (stdin closed)'),
  working_dir: z.string().optional().describe('Folder to run in (default: the workspace root)'),
  timeout_secs: z
    .number()
    .int()
    .min(1)
    .max(MAX_TIMEOUT_SECS)
    .optional()
    .describe(`Seconds before the command is killed (default ${DEFAULT_TIMEOUT_SECS})`),
  output_level: z
    .enum(['error', 'warning', 'info', 'all'])
    .optional()
    .describe(
      '"error": stderr only; "warning": warning lines; "info" (default): output tails; "all": everything up to 1 MB',
    ),
});

/** Whether a workspace confines commands (DenyOutside) and lets them reach the network. */
export function sandboxOf(scope: WorkspaceScope | undefined): { network: boolean } | undefined {
  if (scope?.policy !== 'DenyOutside') return undefined;
  return { network: scope.properties?.network === true };
}

export interface RunCommandOptions {
  /** Default timeout when the call gives none (seconds). */
  timeoutSecs?: number;
}

/**
 * `run_command {command, working_dir?, timeout_secs?, output_level?}`. The workspace checks the
 * working folder; under `approve` a command asks unless `allowCommands` covers each of its parts;
 * under `deny` it runs inside bubblewrap when installed, otherwise unconfined with a warning.
 */
export function createRunCommandTool(options: RunCommandOptions = {}) {
  return new BuiltinTool({
    name: 'run_command',
    description:
      'Run a shell command (sh -c) in a fresh shell with stdin closed. A non-zero exit code is reported, not an error.',
    parameters,
    paths: (args) => [{ path: args.working_dir ?? '.' }],
    asksFor: (args, scope) => !isCommandAllowed(args.command, allowedCommandsOf(scope.properties)),
    target: (args, paths) => `${paths[0]?.real ?? '.'}$ ${args.command}`,
    async run({ args, paths, ops, scope, context }) {
      const [cwd] = paths;
      if (!cwd?.exists || cwd.kind !== 'directory')
        throw new ToolFailure(`No such folder: '${args.working_dir ?? '.'}'`);
      const timeout = args.timeout_secs ?? options.timeoutSecs ?? DEFAULT_TIMEOUT_SECS;
      const sandbox = sandboxOf(scope);
      const writableRoots = scope
        ? await Promise.all(scopeRoots(scope).map((root) => ops.fs.realpath(root).catch(() => root)))
        : [];
      let outcome: Awaited<ReturnType<typeof ops.process.run>>;
      try {
        outcome = await ops.process.run({
          command: args.command,
          cwd: cwd.real,
          timeoutMs: timeout * 1000,
          signal: context.signal,
          ...(sandbox && { sandbox: { ...sandbox, writableRoots } }),
        });
      } catch (error) {
        if (context.signal.aborted) throw error;
        throw new ToolFailure(`execution failed: ${(error as Error).message}`);
      }
      if (outcome.timedOut) throw new ToolFailure(`timed out after ${timeout} seconds`);
      const result = {
        exit_code: outcome.exitCode,
        ...formatCommandOutput(args.output_level ?? 'info', outcome.stdout, outcome.stderr),
      };
      if (sandbox) {
        Object.assign(result, { confinement: outcome.confinement });
        if (outcome.confinement === 'none') {
          Object.assign(result, {
            warning: 'not confined: bubblewrap is not available, so only working_dir was checked',
          });
        }
      }
      return result;
    },
  });
}
