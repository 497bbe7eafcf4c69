import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { JSONValue, NamedMcpServer } from '@raf/core';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { diagnosticAt, parseYamlSource, type SourceDocument } from '../load/source-document.js';

/** A `mcp.json` larger than this is not a server list: refused before it is parsed. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** The file beside an agent file that declares its MCP servers, as Claude Desktop, Cursor and VS Code do. */
export const MCP_CONFIG_FILE = 'mcp.json';

export interface McpServerSources {
  /** The agent file (its folder may hold a `mcp.json`), absolute; absent for text or object sources. */
  agentFile?: string;
  /** The agent file's own `mcpServers:` (keys as written) and its document, for positions. */
  declared?: { value: unknown; document: SourceDocument | undefined; file: string };
  /** `--mcp-config FILE` (absolute). */
  configFile?: string;
  /** `builder.withMcpServer(name, config)`. */
  code: ReadonlyMap<string, Record<string, JSONValue>>;
}

export interface CollectedMcpServers {
  servers: Record<string, NamedMcpServer>;
  /** Files read (each a path the agent loads: protected like the agent file). */
  files: string[];
  diagnostics: Diagnostic[];
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The agent's `mcpServers` map: a `mcp.json` beside the agent file, then the file's own
 * `mcpServers:`, then `--mcp-config`, then code; a later source's server replaces an earlier one's
 * of the same name. Each problem names its file, line and field.
 */
export async function collectMcpServers(sources: McpServerSources): Promise<CollectedMcpServers> {
  const servers: Record<string, NamedMcpServer> = {};
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  const add = (
    map: unknown,
    source: string,
    baseDir: string,
    at: (path: (string | number)[], message: string) => void,
    prefix: (string | number)[],
  ) => {
    if (map === undefined) return;
    if (!isMapping(map))
      return at(prefix, 'mcpServers must map server names to { command, args, env } or { url, headers }');
    for (const [name, config] of Object.entries(map)) {
      if (!isMapping(config) || (typeof config.command !== 'string' && typeof config.url !== 'string')) {
        at([...prefix, name], `the MCP server '${name}' needs a command (stdio) or a url (HTTP)`);
        continue;
      }
      servers[name] = { config: config as Record<string, JSONValue>, source, baseDir };
    }
  };

  const readConfig = async (file: string, shown: string, label: string, required: boolean) => {
    const info = await stat(file).catch(() => undefined);
    if (!info) {
      if (required) diagnostics.push(problemIn(shown, 'the file does not exist'));
      return;
    }
    if (!info.isFile()) return diagnostics.push(problemIn(shown, 'is not a regular file'));
    if (info.size > MAX_CONFIG_BYTES)
      return diagnostics.push(problemIn(shown, `is larger than ${MAX_CONFIG_BYTES} bytes`));
    files.push(file);
    const text = await readFile(file, 'utf8');
    const { document, problems } = parseYamlSource(text, shown);
    diagnostics.push(...problems);
    if (!document) return;
    const value = document.value;
    // VS Code writes `servers`; Claude Desktop and Cursor `mcpServers`.
    const key =
      isMapping(value) && 'mcpServers' in value
        ? 'mcpServers'
        : isMapping(value) && 'servers' in value
          ? 'servers'
          : undefined;
    if (!key)
      return diagnostics.push(diagnosticAt(document, [], 'a mcp.json holds { "mcpServers": { name: … } }'));
    add(
      (value as Record<string, unknown>)[key],
      label,
      dirname(file),
      (path, message) => diagnostics.push(diagnosticAt(document, path, message)),
      [key],
    );
  };

  if (sources.agentFile) {
    const beside = resolve(dirname(sources.agentFile), MCP_CONFIG_FILE);
    await readConfig(beside, beside, MCP_CONFIG_FILE, false);
  }
  if (sources.declared) {
    const { value, document, file } = sources.declared;
    add(
      value,
      basename(file),
      sources.agentFile ? dirname(sources.agentFile) : process.cwd(),
      (path, message) =>
        diagnostics.push(
          document
            ? diagnosticAt(document, path, message)
            : { file, line: 1, column: 1, path: path.join('.'), message, severity: 'error' },
        ),
      ['mcpServers'],
    );
  }
  if (sources.configFile)
    await readConfig(
      sources.configFile,
      sources.configFile,
      `--mcp-config ${basename(sources.configFile)}`,
      true,
    );
  for (const [name, config] of sources.code)
    servers[name] = { config, source: 'code', baseDir: process.cwd() };
  return { servers, files, diagnostics };
}

function problemIn(file: string, message: string): Diagnostic {
  return { file, line: 1, column: 1, path: '', message: `${file}: ${message}`, severity: 'error' };
}
