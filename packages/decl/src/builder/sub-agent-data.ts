import {
  ConfigError,
  type JSONValue,
  type NamedMcpServer,
  type ProtectedPath,
  type RafPlugin,
} from '@raf/core';
import type { AgentToolPolicy } from '@raf/framework';
import * as z from 'zod';
import { agentDefinitionSchema, toolPolicySchema } from '../schema/agent-schema.js';
import type { AgentPlan } from './agent-plan.js';

// A sub-agent's definition as data (SPEC §7.1): what its worker process needs to make that one
// agent — the definition as planned in the parent (its inherited contexts merged in), where its
// paths resolve, the plugins with their options, and the settings the parent planned it under.
// Nothing is read again from the agent file and no sibling is planned. Plain JSON: it travels in
// the worker's `start` message (and may be kept to run the sub-agent elsewhere later); the worker
// parses it with `subAgentDataSchema()` before using any of it.

export const SUB_AGENT_DATA_VERSION = 1;

const json: z.ZodType<JSONValue> = z.lazy(() =>
  z.union([z.null(), z.string(), z.number(), z.boolean(), z.array(json), z.record(z.string(), json)]),
);

let built: ReturnType<typeof build> | undefined;
function build() {
  return z.strictObject({
    version: z.literal(SUB_AGENT_DATA_VERSION),
    name: z.string().min(1),
    /** The sub-agent's definition as the parent planned it (a prompt agent; no sub-agents of its own). */
    definition: agentDefinitionSchema.omit({ subAgents: true, mcpServers: true }),
    baseDir: z.string().min(1),
    /** Its `toolPolicy` under the parent's (never looser). */
    toolPolicy: toolPolicySchema.optional(),
    /** The extension packages its kinds come from, each with the options the parent's was made with. */
    plugins: z.array(z.strictObject({ package: z.string().min(1), options: json.optional() })),
    model: z.strictObject({
      id: z.string().optional(),
      baseURL: z.string().optional(),
      apiKey: z.string().optional(),
      provider: z.string().optional(),
    }),
    variables: z.record(z.string(), json),
    env: z.record(z.string(), z.string()).optional(),
    strict: z.strictObject({ unknownKeys: z.boolean(), missingFolders: z.boolean() }),
    protectedPaths: z.array(
      z.strictObject({ path: z.string(), reason: z.string(), readable: z.boolean().optional() }),
    ),
    mcpServers: z
      .record(
        z.string(),
        z.strictObject({ config: z.record(z.string(), json), source: z.string(), baseDir: z.string() }),
      )
      .optional(),
    governance: z.union([z.strictObject({ file: z.string() }), z.strictObject({ data: json })]),
  });
}

/** The schema a worker checks a sub-agent's data against (built on first use). */
export function subAgentDataSchema(): ReturnType<typeof build> {
  built ??= build();
  return built;
}

export type SubAgentData = z.output<ReturnType<typeof subAgentDataSchema>>;

/** What the parent planned a sub-agent under, besides its plan: kept for its worker. */
export interface SubAgentPlanSettings {
  model: SubAgentData['model'];
  variables: Readonly<Record<string, unknown>>;
  env?: Readonly<Record<string, string | undefined>>;
  strict: SubAgentData['strict'];
  protectedPaths: readonly ProtectedPath[];
  mcpServers?: Readonly<Record<string, NamedMcpServer>>;
  plugins: readonly RafPlugin[];
}

/**
 * The data of sub-agent `name`, as JSON. The copy through `JSON.stringify` is what the IPC channel
 * does anyway; doing it here keeps what the worker gets and what is checked the same value.
 */
export function subAgentData(
  name: string,
  plan: AgentPlan,
  settings: SubAgentPlanSettings,
  extra: { toolPolicy?: AgentToolPolicy; governance: SubAgentData['governance'] },
): JSONValue {
  const { subAgents: _subs, mcpServers: _servers, ...definition } = plan.definition;
  const env = settings.env
    ? Object.fromEntries(
        Object.entries(settings.env).filter((e): e is [string, string] => e[1] !== undefined),
      )
    : undefined;
  const data = {
    version: SUB_AGENT_DATA_VERSION,
    name,
    definition,
    baseDir: plan.baseDir,
    ...(extra.toolPolicy && { toolPolicy: extra.toolPolicy }),
    plugins: settings.plugins.map((p) =>
      p.options ? { package: p.packageName, options: p.options } : { package: p.packageName },
    ),
    model: settings.model,
    variables: settings.variables,
    ...(env && { env }),
    strict: settings.strict,
    protectedPaths: settings.protectedPaths,
    ...(settings.mcpServers && { mcpServers: settings.mcpServers }),
    governance: extra.governance,
  };
  return JSON.parse(JSON.stringify(data));
}

/** Checks what a worker was given; the error names the fields that are wrong. */
export function parseSubAgentData(value: unknown): SubAgentData {
  const parsed = subAgentDataSchema().safeParse(value);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`)
    .join('; ');
  throw new ConfigError(`the sub-agent's definition sent to its worker is not valid: ${detail}`);
}
