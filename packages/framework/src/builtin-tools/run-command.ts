import { isAbsolute, resolve } from 'node:path';
import { scopeRoots, type WorkspaceScope } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { commandEnvironment, workspaceEnvOf } from '../workspace/operations/command-environment.js';
import type { SandboxRequest, ToolOperations } from '../workspace/operations/tool-operations.js';
import type { ProtectionIndex } from '../workspace/protected-paths.js';
import { sandboxProtection } from '../workspace/sandbox-protection.js';
import { BuiltinTool } from './builtin-tool.js';
import { allowedArguments, allowedCommandsOf } from './command-allowlist.js';
import { formatCommandOutput } from './command-output.js';
import { argumentsReachOutside, unreadableReach } from './command-paths.js';
import { parseShellCommand } from './shell-words.js';
import { ToolFailure } from './tool-failure.js';

export const DEFAULT_TIMEOUT_SECS = 30;
const MAX_TIMEOUT_SECS = 3600;

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({
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
  }),
);

/** Whether a workspace confines commands (DenyOutside) and lets them reach the network. */
export function sandboxOf(scope: WorkspaceScope | undefined): { network: boolean } | undefined {
  if (scope?.policy !== 'DenyOutside') return undefined;
  return { network: scope.properties?.network === true };
}

/** The workspace's `readableOutside` (or `readable_outside`), absolute (relative to the main root). */
export function readableOutsideOf(scope: WorkspaceScope): string[] {
  const value = scope.properties?.readableOutside ?? scope.properties?.readable_outside;
  if (!Array.isArray(value)) return [];
  return value
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    .map((p) => (isAbsolute(p) ? p : resolve(scope.root, p)));
}

async function sandboxRequest(
  scope: WorkspaceScope,
  ops: ToolOperations,
  protection: ProtectionIndex,
): Promise<SandboxRequest & { truncated: boolean }> {
  const real = async (paths: string[]) =>
    (await Promise.all(paths.map((p) => ops.fs.realpath(p).catch(() => undefined)))).filter(
      (p): p is string => p !== undefined,
    );
  const writableRoots = await real(scopeRoots(scope));
  const network = scope.properties?.network === true;
  // Without bubblewrap the command runs unconfined (and says so): nothing to search for.
  if (!(await ops.process.canConfine())) return { writableRoots, network, truncated: false };
  const readable = await real(readableOutsideOf(scope));
  const found = await sandboxProtection(writableRoots, readable, protection);
  return {
    writableRoots,
    readable,
    network,
    readOnly: found.readOnly,
    hidden: found.hidden,
    truncated: found.truncated,
  };
}

export interface RunCommandOptions {
  /** Default timeout when the call gives none (seconds). */
  timeoutSecs?: number;
}

/**
 * `run_command {command, working_dir?, timeout_secs?, output_level?}`. The workspace checks the
 * working folder; under `approve` a command asks unless `allowCommands` covers each of its parts
 * and none of its arguments reaches outside the roots; under `deny` it runs inside bubblewrap
 * when installed, otherwise unconfined with a warning. Every policy scrubs the environment.
 */
export function createRunCommandTool(options: RunCommandOptions = {}) {
  return new BuiltinTool({
    name: 'run_command',
    description:
      'Run a shell command (sh -c) in a fresh shell with stdin closed. A non-zero exit code is reported, not an error.',
    parameters,
    paths: (args) => [{ path: args.working_dir ?? '.' }],
    async asksFor(args, context) {
      const rest = allowedArguments(args.command, allowedCommandsOf(context.scope.properties));
      const cwd = context.paths[0];
      if (!rest || !cwd) return true;
      if (await argumentsReachOutside(rest, cwd.real, context)) return true;
      // Finding 5: `grep -r sk- .` read `.env` and the agent file, which `read_file` refuses.
      const reach = await unreadableReach(rest, cwd.real, context);
      return reach ? `${reach}: an allowed command still asks` : false;
    },
    // Without bubblewrap a `deny` command runs unconfined: it must not be given a folder holding
    // what the file tools refuse to read. Confined, the sandbox hides those paths instead.
    async refusesFor(args, context) {
      const cwd = context.paths[0];
      if (!cwd?.exists || (await context.ops.process.canConfine())) return undefined;
      const parsed = parseShellCommand(args.command);
      const words = parsed.ok ? parsed.commands : [];
      const reach = await unreadableReach(words, cwd.real, context);
      return reach && `Refused: ${reach}, and without bubblewrap the command would run unconfined`;
    },
    target: (args, paths) => `${paths[0]?.real ?? '.'}$ ${args.command}`,
    async run({ args, paths, ops, scope, context, protection }) {
      const [cwd] = paths;
      if (!cwd?.exists || cwd.kind !== 'directory')
        throw new ToolFailure(`No such folder: '${args.working_dir ?? '.'}'`);
      const timeout = args.timeout_secs ?? options.timeoutSecs ?? DEFAULT_TIMEOUT_SECS;
      const deny = scope !== undefined && sandboxOf(scope) !== undefined;
      // Without bubblewrap there is nothing to prepare: the command runs unconfined and says so.
      const sandbox = deny
        ? await sandboxRequest(scope, ops, protection).catch((error: Error) => {
            throw new ToolFailure(`cannot prepare the sandbox: ${error.message}`);
          })
        : undefined;
      const env = commandEnvironment(process.env, {
        explicit: workspaceEnvOf(scope),
        ...(deny && { home: await ops.fs.realpath(scope.root).catch(() => scope.root) }),
      });
      let outcome: Awaited<ReturnType<typeof ops.process.run>>;
      try {
        outcome = await ops.process.run({
          command: args.command,
          cwd: cwd.real,
          timeoutMs: timeout * 1000,
          signal: context.signal,
          env,
          ...(sandbox && { sandbox }),
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
        } else if (sandbox.truncated) {
          Object.assign(result, {
            warning:
              'the workspace is too large to search fully for protected files (.env, .raf, .git); deeper ones may be visible to the command',
          });
        }
      }
      return result;
    },
  });
}
