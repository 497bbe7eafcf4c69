import { ConfigError, type Declaration, type JSONValue, type NamedMcpServer } from '@raf/core';
import * as z from 'zod';

/**
 * One server of an `mcpServers` map as `mcp.json` files write it (Claude Desktop, Cursor, VS Code):
 * `{ command, args, env, cwd }` for stdio, `{ url, headers }` for HTTP; `type` names the transport.
 * Other keys those clients keep (`disabled`, `autoApprove`, …) are not RAF settings: reported, never
 * applied (approvals stay as the agent file says).
 */
const namedServerSchema = z.object({
  command: z.string().min(1).optional(),
  args: z.array(z.union([z.string(), z.number(), z.boolean()])).optional(),
  env: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  cwd: z.string().optional(),
  url: z.string().min(1).optional(),
  headers: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  type: z.enum(['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
  transport: z.enum(['stdio', 'streamable-http', 'sse']).optional(),
});

const CONNECTION_FIELDS = ['command', 'args', 'env', 'cwd', 'url', 'transport'] as const;

/**
 * Keys of a map entry that would narrow what runs (`approval_mode`, misspelt too; `tools`;
 * `tool_name`): the map gives a server's connection only, so each was dropped and the tools ran
 * ungated (`"approval_mode": "always"` in `mcp.json` did nothing). They are errors that say where
 * the setting goes. Other clients' keys (`disabled`, `autoApprove`) pass unread: they loosen.
 */
const GATE_KEY = /^ap?pro?val|^tools$|^tool[_-]?names?$/i;
const STDIO_PREFIX = 'stdio://';

/** What the entry names: `server: NAME`, or a `url`/`serverUrl` of `stdio://NAME` (or a key as written). */
function reference(
  decl: Declaration,
  servers: Readonly<Record<string, NamedMcpServer>>,
): { name: string; field: string } | undefined {
  const config = (decl.config ?? {}) as Record<string, unknown>;
  const candidates: [string, unknown][] = [
    ['server', decl.server],
    ['config.server', config.server],
    ['serverUrl', decl.serverUrl],
    ['config.serverUrl', config.serverUrl ?? config.server_url],
    ['config.url', config.url],
  ];
  for (const [field, value] of candidates) {
    if (typeof value !== 'string') continue;
    if (field.endsWith('server')) return { name: value, field };
    // The upstream keys servers by the exact `server_url` string; `stdio://NAME` names one too.
    if (Object.hasOwn(servers, value)) return { name: value, field };
    if (value.startsWith(STDIO_PREFIX)) return { name: value.slice(STDIO_PREFIX.length), field };
  }
  return undefined;
}

export interface ResolvedServer {
  /** The entry with the named server's connection fields in its `config`. */
  decl: Declaration;
  name: string;
  baseDir: string;
  source: string;
}

/**
 * Resolves an entry that names a server of the `mcpServers` map. Undefined when it names none;
 * an unknown name is an error listing the known ones (and where they come from).
 */
export function resolveNamedServer(
  decl: Declaration,
  servers: Readonly<Record<string, NamedMcpServer>> | undefined,
  label: string,
): ResolvedServer | undefined {
  const known = servers ?? {};
  const ref = reference(decl, known);
  if (!ref) return undefined;
  const server = Object.hasOwn(known, ref.name) ? known[ref.name] : undefined;
  if (!server) {
    const names = Object.entries(known).map(([name, s]) => `${name} (${s.source})`);
    throw new ConfigError(
      `${label}: ${ref.field} names the MCP server '${ref.name}', which no mcpServers map declares; ${
        names.length > 0
          ? `known: ${names.join(', ')}`
          : 'declare it under mcpServers: in the agent file, in a mcp.json beside it, or with --mcp-config FILE'
      }`,
    );
  }
  const gates = Object.keys(server.config).filter((key) => GATE_KEY.test(key));
  if (gates.length > 0)
    throw new ConfigError(
      `mcpServers.${ref.name} (${server.source}): ${gates.map((k) => `'${k}'`).join(', ')} is not read in an mcpServers map, which gives only the server's connection; set approval_mode, tools or tool_name on the kind: mcp entry that names it (${label})`,
    );
  const parsed = namedServerSchema.safeParse(server.config);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new ConfigError(`mcpServers.${ref.name} (${server.source}): ${detail}`);
  }
  const { type, ...fields } = parsed.data;
  const config: Record<string, unknown> = { ...(decl.config ?? {}) };
  for (const key of ['server', 'serverUrl', 'server_url', 'url'] as const) delete config[key];
  for (const key of CONNECTION_FIELDS)
    if (config[key] !== undefined)
      throw new ConfigError(
        `${label}: names the MCP server '${ref.name}' and gives config.${key} too; the server's connection comes from ${server.source}`,
      );
  const transport =
    type === 'sse' ? 'sse' : type === 'stdio' || type === undefined ? undefined : 'streamable-http';
  Object.assign(config, fields, transport && fields.url !== undefined && { transport });
  // The entry's own headers (a workflow action's) go over the map's; none is none (a stdio server has none).
  const headers = {
    ...fields.headers,
    ...((decl.config?.headers as Record<string, unknown> | undefined) ?? {}),
  };
  if (Object.keys(headers).length > 0) config.headers = headers;
  else delete config.headers;
  const { server: _server, serverUrl: _serverUrl, ...rest } = decl;
  return {
    decl: { ...rest, config: config as Record<string, JSONValue> },
    name: ref.name,
    baseDir: server.baseDir,
    source: server.source,
  };
}
