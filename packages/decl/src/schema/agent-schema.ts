import * as z from 'zod';
import { FREE_FORM, snakeCase } from './normalize.js';

/** `kind: key|remote|reference|anonymous|foundry|oauth` and the fields each uses. */
export const connectionSchema = z.strictObject({
  kind: z.enum(['key', 'remote', 'reference', 'anonymous', 'foundry', 'oauth']).optional(),
  apiKey: z.string().optional(),
  endpoint: z.string().optional(),
  name: z.string().optional(),
  target: z.string().optional(),
  authenticationMode: z.enum(['user', 'system']).optional(),
  usageDescription: z.string().optional(),
  keyEnvVar: z.string().optional(),
  tokenEnvVar: z.string().optional(),
  /** Extra HTTP headers sent with every request. */
  headers: z.record(z.string(), z.string()).optional(),
});

export const modelOptionsSchema = z.strictObject({
  kind: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  topP: z.number().min(0).max(1).optional(),
  topK: z.number().int().positive().optional(),
  frequencyPenalty: z.number().optional(),
  presencePenalty: z.number().optional(),
  seed: z.number().int().optional(),
  stopSequences: z.array(z.string()).optional(),
  allowMultipleToolCalls: z.boolean().optional(),
  reasoningEffort: z.string().optional(),
  /**
   * Prompt-cache breakpoints (Anthropic `cache_control`): `auto` (default: system prompt, tools,
   * last turn), `false`, or the places to mark.
   */
  cache: z
    .union(
      [z.literal(false), z.literal('auto'), z.array(z.enum(['system', 'tools', 'lastTurn', 'last_turn']))],
      {
        error: 'must be auto, false, or a list of system, tools, lastTurn',
      },
    )
    .optional(),
  /** Sent as-is in the request body (provider-specific switches). */
  extra: z.record(z.string(), z.unknown()).optional(),
});

const modelShape = {
  id: z.string().min(1, 'the model needs an id (e.g. gpt-4o-mini)'),
  provider: z.string().optional(),
  apiType: z.enum(['chat', 'responses']).optional(),
  /** `provider: ai-sdk`: the AI SDK provider package whose model `id` is (`@ai-sdk/openai`). */
  package: z.string().min(1).optional(),
  connection: connectionSchema.optional(),
  options: modelOptionsSchema.optional(),
  /**
   * What the model takes besides text: `images` (image parts, a `read_file` of a picture) and
   * `files` (PDFs and other documents). By default what the provider's model is known to take.
   */
  capabilities: z.strictObject({ images: z.boolean().optional(), files: z.boolean().optional() }).optional(),
  /**
   * Settings of the provider itself rather than of a request, passed to its factory as `config`:
   * a local model's file and hardware (`@raf/llama`: `modelPath`, `useGpu`, `contextSize`, `threads`).
   */
  config: z.record(z.string(), z.unknown()).optional(),
};

export const modelSchema = z.strictObject({
  ...modelShape,
  /**
   * Models tried in order when this one's retries are spent on a failure before it answered
   * (429/5xx storms, refused connections, no first chunk), each with a `warning` update.
   */
  fallback: z.array(z.strictObject(modelShape)).optional(),
});

/** One `tools:` entry. Kinds come from plugins, so `kind` is any name; `config` is free-form. */
export const toolDeclSchema = z.strictObject({
  kind: z.string().min(1),
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  bindings: z.array(z.record(z.string(), z.unknown())).optional(),
  serverUrl: z.string().optional(),
  /** `kind: mcp`: a server of the `mcpServers` map (`mcp.json`) by name. */
  server: z.string().min(1).optional(),
  /** `kind: mcp`: a tool of the server (upstream), or `{ remote: local }` renames. */
  toolName: z
    .union([z.string(), z.record(z.string(), z.string())], {
      error: 'must be a tool name or a { remote: local } map of names',
    })
    .optional(),
  /** `kind: mcp`: `never|always`, or per tool `{ always: [names], never: [names] }`. */
  approvalMode: z
    .union(
      [
        z.enum(['never', 'always']),
        z.strictObject({ always: z.array(z.string()).optional(), never: z.array(z.string()).optional() }),
      ],
      { error: 'must be one of "never", "always", or { always: [tool names], never: [tool names] }' },
    )
    .optional(),
  /** `kind: mcp`: the server's tools to offer (an allow-list). */
  tools: z.array(z.string()).optional(),
  /** Seconds one call of this entry's tools may run (over the tool's own limit and `toolTimeoutSecs`; `kind: mcp` too). */
  timeoutSecs: z.number().positive().optional(),
  specUrl: z.string().optional(),
  operationId: z.string().optional(),
});

export const contextDeclSchema = z.strictObject({
  kind: z.string().min(1),
  name: z.string().min(1).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  // `kind: mcp` only (the plan refuses them on other kinds): as on a `tools:` entry, the MCP
  // README lets these stand beside `config`. Dropped, `approval_mode: always` ran tools unasked.
  toolName: toolDeclSchema.shape.toolName,
  approvalMode: toolDeclSchema.shape.approvalMode,
  tools: toolDeclSchema.shape.tools,
  timeoutSecs: toolDeclSchema.shape.timeoutSecs,
});

/** The fields of a `contexts:` entry besides `kind`, `name` and `config`: `kind: mcp` reads them. */
export const MCP_CONTEXT_ENTRY_FIELDS = ['toolName', 'approvalMode', 'tools', 'timeoutSecs'] as const;

export const compressionSchema = z.strictObject({
  kind: z.enum(['sliding_window', 'token_budget', 'summarize']),
  windowSize: z.number().int().positive().optional(),
  toolResultEvictionThreshold: z.number().min(0).max(1).optional(),
  maxTokens: z.number().int().positive().optional(),
  keepRecent: z.number().int().positive().optional(),
  /** `summarize`: share of the budget kept verbatim for the newest messages (default 0.5). */
  keepRecentShare: z.number().gt(0).lt(1).optional(),
  /** `summarize`: the instruction the summarizing model gets. */
  prompt: z.string().min(1).optional(),
});

export const templateSchema = z.strictObject({
  format: z.enum(['mustache', 'plain', 'jinja2', 'any']),
  parser: z.string().optional(),
  content: z.string().optional(),
  sourcePath: z.string().optional(),
});

const routingStrategy = z.enum(['auto', 'force-local', 'force-main-process-proxy', 'force-disabled']);

/** An agent's overrides of tool governance (SPEC §7.1); tool names accept seed 002's aliases. */
export const toolPolicySchema = z.strictObject({
  disabled: z.array(z.string().min(1)).optional(),
  enabled: z.array(z.string().min(1)).optional(),
  routing: z.record(z.string(), routingStrategy).optional(),
  promptHints: z.record(z.string(), z.string()).optional(),
});

/** The fields every prompt agent has, root or sub-agent. */
const promptAgentShape = {
  kind: z.enum(['prompt', 'workflow', 'hosted']).default('prompt'),
  name: z.string().min(1, 'the agent needs a name'),
  displayName: z.string().optional(),
  description: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  model: modelSchema,
  instructions: z.string().default(''),
  additionalInstructions: z.string().optional(),
  template: templateSchema.optional(),
  tools: z.array(toolDeclSchema).default([]),
  contexts: z.array(contextDeclSchema).default([]),
  maxToolRounds: z.number().int().min(1).max(1000).default(10),
  /** Seconds a tool call may run when its tool names no limit (default 120). */
  toolTimeoutSecs: z.number().positive().optional(),
  compression: compressionSchema.optional(),
  tokenCounter: z.strictObject({ kind: z.enum(['estimate', 'exact']) }).optional(),
  sandbox: z.record(z.string(), z.unknown()).optional(),
  toolPolicy: toolPolicySchema.optional(),
};

/**
 * A sub-agent: a full `kind: prompt` definition, plus where it runs (`runtime: worker`, the
 * default, a child process per delegation; `inline`: in the parent's process) and how long one
 * delegation may take. `subAgents` parses only to be reported: sub-agents do not nest.
 */
export const subAgentSchema = z.strictObject({
  ...promptAgentShape,
  kind: z.literal('prompt', { error: 'a sub-agent must be kind: prompt' }).default('prompt'),
  runtime: z.enum(['worker', 'inline']).optional(),
  timeoutSecs: z.number().positive().optional(),
  subAgents: z.array(z.unknown()).optional(),
});

/**
 * A remote sub-agent over A2A (`kind: a2a`, SPEC §14.3): delegated to like a local one, each
 * delegation one A2A message to the agent at `url` (its card below it, or at `cardPath`), through
 * the SSRF guard (`allowPrivate` for a local or intranet agent). Built by `@raf/a2a`.
 */
export const a2aSubAgentSchema = z.strictObject({
  kind: z.literal('a2a'),
  name: z.string().min(1, 'the agent needs a name'),
  description: z.string().optional(),
  url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL of the remote agent' }),
  cardPath: z.string().min(1).optional(),
  /** Sent with every request to the agent (`Authorization: Bearer ${A2A_TOKEN}`). */
  headers: z.record(z.string(), z.string()).optional(),
  allowPrivate: z.array(z.string().min(1)).optional(),
  maxBytes: z.number().int().positive().optional(),
  timeoutSecs: z.number().positive().optional(),
});

/** A `subAgents:` entry: a prompt agent (the default kind) or a remote A2A agent. */
export const subAgentEntrySchema = z.discriminatedUnion('kind', [subAgentSchema, a2aSubAgentSchema], {
  error: 'a sub-agent must be kind: prompt or kind: a2a',
});

/** A prompt agent (`kind: prompt`), field for field with the upstream schema. */
export const agentDefinitionSchema = z.strictObject({
  ...promptAgentShape,
  subAgents: z.array(subAgentEntrySchema).optional(),
  /**
   * MCP servers by name, in the `mcp.json` format (`{ command, args, env }` or `{ url, headers }`):
   * `kind: mcp` entries name one with `server: NAME` or `server_url: stdio://NAME`.
   */
  mcpServers: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});

export type AgentDefinition = z.output<typeof agentDefinitionSchema>;
export type ToolDecl = z.output<typeof toolDeclSchema>;
export type ContextDecl = z.output<typeof contextDeclSchema>;
export type ModelDecl = z.output<typeof modelSchema>;
export type SubAgentDefinition = z.output<typeof subAgentSchema>;
export type A2ASubAgentDefinition = z.output<typeof a2aSubAgentSchema>;
export type SubAgentEntry = z.output<typeof subAgentEntrySchema>;
export type ToolPolicyDecl = z.output<typeof toolPolicySchema>;

/** Adds the upstream snake_case spelling of every field, so editors accept upstream files too. */
function withSnakeCaseAliases(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) withSnakeCaseAliases(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  const properties = object.properties as Record<string, unknown> | undefined;
  if (properties && typeof properties === 'object') {
    for (const [name, value] of Object.entries(properties)) {
      if (!FREE_FORM.has(name)) withSnakeCaseAliases(value);
      const snake = snakeCase(name);
      if (snake !== name && !(snake in properties)) properties[snake] = value;
    }
  }
  for (const [key, value] of Object.entries(object)) if (key !== 'properties') withSnakeCaseAliases(value);
}

/**
 * What the loader accepts before its schema sees the file, which the schema alone does not say:
 * `model.options` and `connection` keep unknown keys (options → the provider's extra body,
 * connection strings → HTTP headers, with a warning), and `template: mustache` is short for
 * `template: { format: mustache }`. An editor must not flag what `raf validate` accepts.
 */
function asWritten(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) asWritten(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  const properties = object.properties as Record<string, Record<string, unknown>> | undefined;
  if (properties?.temperature || (properties?.endpoint && properties.apiKey))
    object.additionalProperties = true;
  const template = properties?.template;
  if (properties && template?.type === 'object' && template.properties) {
    const format = (template.properties as Record<string, unknown>).format;
    properties.template = { anyOf: [format, template] };
  }
  for (const value of Object.values(object)) asWritten(value);
}

/** The JSON Schema of agent files (`raf schema`; `yaml-language-server: $schema=…`). */
export function agentJsonSchema(): Record<string, unknown> {
  const schema = JSON.parse(
    JSON.stringify(
      z.toJSONSchema(agentDefinitionSchema, { target: 'draft-7', io: 'input', unrepresentable: 'any' }),
    ),
  ) as Record<string, unknown>;
  asWritten(schema);
  withSnakeCaseAliases(schema);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://raf.dev/schema/agent.schema.json',
    title: 'RAF agent',
    description: 'A RAF declarative agent; every field also accepts its upstream snake_case spelling.',
    ...schema,
  };
}

/** Every field name the schema knows, for "did you mean" hints. */
export const KNOWN_KEYS: readonly string[] = [
  ...new Set(
    [
      agentDefinitionSchema,
      modelSchema,
      connectionSchema,
      modelOptionsSchema,
      toolDeclSchema,
      contextDeclSchema,
      compressionSchema,
      templateSchema,
      toolPolicySchema,
      subAgentSchema,
      a2aSubAgentSchema,
    ].flatMap((schema) => Object.keys(schema.shape)),
  ),
];
