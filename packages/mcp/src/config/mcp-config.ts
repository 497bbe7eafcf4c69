import { ConfigError } from '@raf/core';
import * as z from 'zod';
import { type OAuthSettings, oauthConnectionSchema } from '../auth/oauth-settings.js';

/** `never` (default), `always`, or per tool: `{ always: [names] }` / `{ never: [names] }`. */
export const approvalModeSchema = z.union([
  z.enum(['never', 'always']),
  z.strictObject({ always: z.array(z.string()).optional(), never: z.array(z.string()).optional() }),
]);
export type ApprovalMode = z.output<typeof approvalModeSchema>;

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** How to reach the server: a command (stdio) or a URL (streamable HTTP, SSE fallback). */
const serverShape = {
  command: z.string().min(1).optional(),
  args: z.array(scalar).optional(),
  /** Added to a small inherited set (PATH, HOME, …): the agent's own environment is not passed on. */
  env: z.record(z.string(), scalar).optional(),
  cwd: z.string().optional(),
  url: z.string().min(1).optional(),
  /** The upstream spelling of `url`. */
  serverUrl: z.string().min(1).optional(),
  /** A server of the `mcpServers` map (`mcp.json`) by name; `url: stdio://NAME` names one too. */
  server: z.string().min(1).optional(),
  headers: z.record(z.string(), scalar).optional(),
  /** `{ kind: oauth, client_id?, client_secret?, scopes?, grant? }`: OAuth 2.1 for an HTTP server. */
  connection: oauthConnectionSchema.optional(),
  /** `stdio` for a command; for a URL, streamable HTTP with an SSE fallback unless one is named. */
  transport: z.enum(['stdio', 'streamable-http', 'sse']).optional(),
};

/** What the agent does with the server's tools. */
const toolOptionsShape = {
  /** Allow-list of the server's tool names; others are not offered. */
  tools: z.array(z.string().min(1)).optional(),
  /** `{ remote: local }` renames; a single string selects one tool (the upstream form). */
  toolName: z.union([z.string().min(1), z.record(z.string(), z.string().min(1))]).optional(),
  approvalMode: approvalModeSchema.optional(),
  /** Per call (default 60). */
  timeoutSecs: z.number().positive().optional(),
  /** Starting the server and the MCP handshake (default 30). */
  connectTimeoutSecs: z.number().positive().optional(),
  /** Tries to (re)connect after the server exits or its session expires (default 3). */
  reconnectAttempts: z.number().int().min(1).max(20).optional(),
  /** Above this many MCP tools in the agent, the model gets `search_tools`/`call_tool` instead (default 40). */
  maxExposedTools: z.number().int().min(1).optional(),
  /** What of a result (a tool's, a resource's, a prompt's) reaches the model; the rest is cut, `truncated` (default 131072). */
  maxResultBytes: z.number().int().min(1024).optional(),
  /** Each tool description's cap, cut with `…` (default 4096). */
  maxDescriptionBytes: z.number().int().min(64).optional(),
};

const contextOnlyShape = {
  /** List the server's resources in the instructions and offer `read_mcp_resource` (default true). */
  resources: z.boolean().optional(),
  /** List the server's prompts and offer `get_mcp_prompt` (default true). */
  prompts: z.boolean().optional(),
  /** Pass the server's own instructions on to the model (default true). */
  instructions: z.boolean().optional(),
  /** Resources whose contents are injected on every run and kept current (`resources/subscribe`). */
  subscribe: z.array(z.string().min(1)).max(20).optional(),
};

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Adds the upstream snake_case spelling of each field: `config` maps are not renamed by the loader. */
function withSnakeCase<Shape extends Record<string, z.ZodType>>(shape: Shape): Shape {
  const out: Record<string, z.ZodType> = { ...shape };
  for (const [key, schema] of Object.entries(shape)) out[snakeCase(key)] = schema;
  return out as Shape;
}

/** `tools: [{ kind: mcp, config }]`: the `config` map (each field also in snake_case). */
export const mcpToolConfigSchema = z.strictObject(withSnakeCase({ ...serverShape, ...toolOptionsShape }));

/** `contexts: [{ kind: mcp, config }]`: the `config` map (each field also in snake_case). */
export const mcpContextConfigSchema = z.strictObject(
  withSnakeCase({ ...serverShape, ...toolOptionsShape, ...contextOnlyShape }),
);

type Scalar = z.output<typeof scalar>;

/** One server entry after both spellings were merged and checked. */
export interface McpEntryConfig {
  command?: string;
  args?: Scalar[];
  env?: Record<string, Scalar>;
  cwd?: string;
  url?: string;
  headers?: Record<string, Scalar>;
  connection?: OAuthSettings;
  transport?: 'stdio' | 'streamable-http' | 'sse';
  tools?: string[];
  toolName?: string | Record<string, string>;
  approvalMode?: ApprovalMode;
  timeoutSecs?: number;
  connectTimeoutSecs?: number;
  reconnectAttempts?: number;
  maxExposedTools?: number;
  maxResultBytes?: number;
  maxDescriptionBytes?: number;
  resources?: boolean;
  prompts?: boolean;
  instructions?: boolean;
  subscribe?: string[];
}

function closest(key: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const row = Array.from({ length: candidate.length + 1 }, (_, i) => i);
    for (let i = 1; i <= key.length; i++) {
      let diagonal = row[0]!;
      row[0] = i;
      for (let j = 1; j <= candidate.length; j++) {
        const above = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (key[i - 1] === candidate[j - 1] ? 0 : 1));
        diagonal = above;
      }
    }
    if (row[candidate.length]! < bestDistance) {
      bestDistance = row[candidate.length]!;
      best = candidate;
    }
  }
  return best;
}

/** `config.timeoutSecs: …`; never the value (env and header values are secrets). */
function describeIssues(error: z.ZodError, where: string, known: readonly string[]): string {
  return error.issues
    .flatMap((issue) => {
      const path = [where, ...issue.path.map(String)].join('.');
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => {
          const hint = closest(key, known);
          return `${path}.${key} is not an mcp setting${hint ? ` (did you mean '${hint}'?)` : ''}`;
        });
      }
      if (issue.code === 'invalid_union') return [`${path} has the wrong shape`];
      return [`${path}: ${issue.message}`];
    })
    .join('; ');
}

const ALIASES: readonly (readonly [string, string])[] = [
  ['serverUrl', 'url'],
  ...Object.keys({ ...serverShape, ...toolOptionsShape, ...contextOnlyShape })
    .filter((key) => snakeCase(key) !== key)
    .map((key) => [snakeCase(key), key] as const),
];

/** Both spellings of one field, or a field in `config` and beside it, is an error (which one would win?). */
function canonical(raw: Record<string, unknown>, label: string): McpEntryConfig {
  const out: Record<string, unknown> = { ...raw };
  for (const [alias, name] of ALIASES) {
    if (!(alias in out)) continue;
    if (name in out)
      throw new ConfigError(`${label}: '${alias}' and '${name}' are the same setting; give one`);
    out[name] = out[alias];
    delete out[alias];
  }
  return out as McpEntryConfig;
}

/** Fields of an entry that may stand beside `config` (the upstream and the issue's spellings); `serverUrl` on `tools:` only. */
const ENTRY_FIELDS = ['serverUrl', 'toolName', 'approvalMode', 'tools', 'timeoutSecs'] as const;
const CONTEXT_ENTRY_FIELDS = ['toolName', 'approvalMode', 'tools', 'timeoutSecs'] as const;

/**
 * Checks one `kind: mcp` entry and merges its spellings: fields beside `config` (`server_url`,
 * `tool_name`, `approval_mode`, `tools`, `timeout_secs`; the loader has camel-cased them) and
 * fields inside it (either case). Errors name the field, never its value.
 */
export function parseMcpEntry(
  entry: { config?: unknown; [key: string]: unknown },
  kind: 'tool' | 'context',
  label: string,
): McpEntryConfig {
  const schema = kind === 'tool' ? mcpToolConfigSchema : mcpContextConfigSchema;
  const config = entry.config ?? {};
  const parsed = schema.safeParse(config);
  if (!parsed.success)
    throw new ConfigError(`${label}: ${describeIssues(parsed.error, 'config', Object.keys(schema.shape))}`);
  const merged = canonical(parsed.data as Record<string, unknown>, label);
  {
    // `approval_mode` beside `config` on a context entry too: dropped, it ran gated tools unasked.
    const fields = kind === 'tool' ? ENTRY_FIELDS : CONTEXT_ENTRY_FIELDS;
    const beside: Record<string, unknown> = {};
    for (const field of fields) if (entry[field] !== undefined) beside[field] = entry[field];
    const shape = z.strictObject(toolOptionsShape).partial();
    const checked = (kind === 'tool' ? shape.extend({ serverUrl: z.string().optional() }) : shape).safeParse(
      beside,
    );
    if (!checked.success)
      throw new ConfigError(`${label}: ${describeIssues(checked.error, 'entry', fields)}`);
    for (const [field, value] of Object.entries(canonical(checked.data as Record<string, unknown>, label))) {
      if (field in merged)
        throw new ConfigError(`${label}: '${field}' is given both in config and beside it; give one`);
      (merged as Record<string, unknown>)[field] = value;
    }
  }
  if (merged.command === undefined && merged.url === undefined)
    throw new ConfigError(`${label}: config needs a command (a stdio server) or a url (an HTTP server)`);
  if (merged.command !== undefined && merged.url !== undefined)
    throw new ConfigError(`${label}: config has both command and url; an MCP server is one or the other`);
  if (merged.url !== undefined) {
    if (merged.transport === 'stdio')
      throw new ConfigError(`${label}: transport stdio needs a command, not a url`);
    for (const field of ['args', 'env', 'cwd'] as const)
      if (merged[field] !== undefined)
        throw new ConfigError(`${label}: config.${field} applies to a command (stdio), not to a url`);
    let url: URL;
    try {
      url = new URL(merged.url);
    } catch {
      throw new ConfigError(`${label}: config.url is not a valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigError(`${label}: config.url must be http: or https: (got ${url.protocol})`);
  } else {
    if (merged.transport !== undefined && merged.transport !== 'stdio')
      throw new ConfigError(`${label}: transport ${merged.transport} needs a url, not a command`);
    if (merged.headers !== undefined)
      throw new ConfigError(`${label}: config.headers applies to a url (HTTP), not to a command`);
    if (merged.connection !== undefined)
      throw new ConfigError(`${label}: config.connection (OAuth) applies to a url (HTTP), not to a command`);
  }
  return merged;
}
