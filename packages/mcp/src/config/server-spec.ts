import { basename, isAbsolute, resolve } from 'node:path';
import type { OAuthSettings } from '../auth/oauth-settings.js';
import { type ContextHeader, splitHeaders } from '../connection/per-user.js';
import type { McpEntryConfig } from './mcp-config.js';

/** How to start or reach one MCP server; `env` and `headers` values are secrets. */
export type McpServerSpec =
  | {
      transport: 'stdio';
      name: string;
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd: string;
    }
  | {
      /** `http`: streamable HTTP, falling back to SSE for servers that predate it. */
      transport: 'http' | 'streamable-http' | 'sse';
      name: string;
      url: string;
      headers: Record<string, string>;
      /** OAuth 2.1 (`connection: { kind: oauth }`): tokens from the credential store. */
      oauth?: OAuthSettings;
      /** Headers read from each run's context (`=Context.path`): a connection per distinct value. */
      contextHeaders?: Record<string, ContextHeader>;
    };

// Launchers whose first argument names the server better than they do.
const LAUNCHERS = new Set([
  'node',
  'npx',
  'pnpm',
  'npm',
  'bunx',
  'bun',
  'deno',
  'uv',
  'uvx',
  'python',
  'python3',
  'docker',
  'tsx',
]);

const stringValues = (record: Record<string, string | number | boolean> | undefined) =>
  Object.fromEntries(Object.entries(record ?? {}).map(([k, v]) => [k, String(v)]));

/** A server name for the model, `inspect` and errors: the entry's `name`, else from the command or host. */
function defaultName(config: McpEntryConfig): string {
  if (config.url !== undefined) return new URL(config.url).hostname;
  const command = basename(config.command ?? 'mcp');
  const words = [command, ...(config.args ?? []).map(String)];
  const subject = LAUNCHERS.has(command.replace(/\.exe$/, ''))
    ? (words.slice(1).find((arg) => !arg.startsWith('-')) ?? command)
    : command;
  return basename(subject).replace(/\.(m?[jt]s|py|exe)$/, '') || 'mcp';
}

/** Names in tool descriptions and tool-name prefixes: letters, digits, `_` and `-`. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40) || 'mcp';
}

export function serverSpec(config: McpEntryConfig, name: string | undefined, baseDir: string): McpServerSpec {
  const serverName = name ?? defaultName(config);
  if (config.url !== undefined) {
    const { fixed, fromContext } = splitHeaders(stringValues(config.headers));
    return {
      transport:
        config.transport === 'sse' || config.transport === 'streamable-http' ? config.transport : 'http',
      name: serverName,
      url: config.url,
      headers: fixed,
      ...(config.connection && { oauth: config.connection }),
      ...(Object.keys(fromContext).length > 0 && { contextHeaders: fromContext }),
    };
  }
  const command = config.command as string;
  return {
    transport: 'stdio',
    name: serverName,
    // `./server.js` is relative to the YAML file; a bare `node` is looked up on PATH.
    command: command.includes('/') && !isAbsolute(command) ? resolve(baseDir, command) : command,
    args: (config.args ?? []).map(String),
    env: stringValues(config.env),
    cwd: resolve(baseDir, config.cwd ?? '.'),
  };
}

/** One connection per server: entries that give the same server (and name) share it. */
export function specKey(spec: McpServerSpec): string {
  return JSON.stringify(spec);
}

/** The values that must never appear in an error, a log line or `inspect`. */
export function secretValues(spec: McpServerSpec): string[] {
  const values =
    spec.transport === 'stdio'
      ? Object.values(spec.env)
      : [...Object.values(spec.headers), ...(spec.oauth?.clientSecret ? [spec.oauth.clientSecret] : [])];
  return values.filter((value) => value.length >= 4);
}
