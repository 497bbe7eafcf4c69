import { resolve } from 'node:path';
import type { Diagnostic } from '@raf/decl';
import type { ChatClientAgent } from '@raf/framework';
import type { WorkflowAgent } from '@raf/workflow';
import * as z from 'zod';
import { type CliArgs, parseCliArgs } from '../args.js';
import { CliError, type CliIO } from '../io.js';
import { builderFor } from '../load-agent.js';

/** What a durable run records of the command line that built its agent (never a secret: keys come from the worker's environment). */
const overridesSchema = z.object({ flags: z.array(z.string()) });

/** The flags of `args` that change how the agent file builds: `--model`, `--base-url`, `--var`, … */
export function agentFlags(args: CliArgs, io: CliIO): string[] {
  const flags: string[] = [];
  const model = args.model ?? io.env.RAF_MODEL;
  if (model) flags.push('--model', model);
  if (args.baseURL) flags.push('--base-url', args.baseURL);
  for (const [key, value] of Object.entries(args.variables)) flags.push('--var', `${key}=${value}`);
  if (args.strict) flags.push('--strict');
  if (args.mcpConfig) flags.push('--mcp-config', resolve(io.cwd, args.mcpConfig));
  if (args.store) flags.push('--store', args.store);
  return flags;
}

/**
 * Builds an agent file as `raf run` would (the extensions installed, the recorded overrides): a
 * chat agent, or a workflow (`kind: workflow`, an orchestration) whose nodes are checkpointed.
 */
export async function buildDurableAgent(
  file: string,
  args: CliArgs,
  io: CliIO,
  onWarnings: (warnings: Diagnostic[]) => void = () => {},
): Promise<ChatClientAgent | WorkflowAgent> {
  return (await builderFor(file, args, io)).buildAgent({ onWarnings });
}

/** A worker's way to rebuild the agent a run recorded: its file, folder and flags. */
export async function rebuildAgent(
  ref: {
    name: string;
    file?: string | undefined;
    cwd?: string | undefined;
    overrides?: Record<string, unknown> | undefined;
  },
  io: CliIO,
): Promise<ChatClientAgent | WorkflowAgent> {
  if (!ref.file)
    throw new CliError(
      `durable run of ${ref.name}: no agent file recorded; raf worker rebuilds file agents only`,
    );
  const { flags } = overridesSchema.parse(ref.overrides ?? { flags: [] });
  const cwd = ref.cwd ?? io.cwd;
  const args = parseCliArgs(['run', ref.file, ...flags]);
  return buildDurableAgent(ref.file, args, { ...io, cwd });
}
