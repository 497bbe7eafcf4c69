import {
  ConfigError,
  type Declaration,
  type ITool,
  type PluginBuildContext,
  type RafPlugin,
} from '@raf/core';
import {
  credentialStoreFor,
  FileCredentialStore,
  type McpCredentialStore,
} from '../auth/credential-store.js';
import { SecretCredentialStore } from '../auth/secret-credentials.js';
import { DEFAULT_MAX_EXPOSED_TOOLS, McpCatalog, type RequestHeaders } from '../catalog/mcp-catalog.js';
import type { ServerToolsOptions } from '../catalog/server-tools.js';
import { executedFiles } from '../config/executed-files.js';
import {
  type McpEntryConfig,
  mcpContextConfigSchema,
  mcpToolConfigSchema,
  parseMcpEntry,
} from '../config/mcp-config.js';
import { resolveNamedServer } from '../config/named-servers.js';
import { type McpServerSpec, serverSpec } from '../config/server-spec.js';
import { debugSink, type McpLogSink } from '../connection/server-log.js';
import { McpContextProvider } from '../provider/mcp-context-provider.js';
import { DEFAULT_MAX_RESULT_BYTES } from '../tools/result-cap.js';

export interface McpPluginOptions {
  /** Agent-wide default of `maxExposedTools` (40): above it, `search_tools` / `call_tool` stand in. */
  maxExposedTools?: number;
  /** Receives servers' stderr and connection events; default: stderr when `RAF_DEBUG=mcp`. */
  log?: McpLogSink;
  /** How the agent introduces itself to servers (default `raf`). */
  clientInfo?: { name: string; version: string };
  /**
   * Where OAuth servers' tokens are kept (`connection: { kind: oauth }`); default the state
   * store's folder: `<DIR>/mcp-auth` of `RAF_STORE=file:DIR`, else `.raf/mcp-auth`.
   */
  credentials?: McpCredentialStore;
  /**
   * Per-request credentials from code: headers for one call of an HTTP server, from the run's
   * context (`agent.run(input, { context })`); each distinct set gets its own connection.
   */
  requestHeaders?: RequestHeaders;
}

/** `mcpPlugin()`'s plugin: `close()` stops every server it started, for every agent it built. */
export interface McpPlugin extends RafPlugin {
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_SECS = 60;

function toolOptions(config: McpEntryConfig): ServerToolsOptions & { maxExposedTools?: number } {
  return {
    ...(config.tools && { allow: config.tools }),
    ...(typeof config.toolName === 'object' && { rename: config.toolName }),
    ...(config.approvalMode !== undefined && { approvalMode: config.approvalMode }),
    ...(config.maxExposedTools !== undefined && { maxExposedTools: config.maxExposedTools }),
    ...(config.maxResultBytes !== undefined && { maxResultBytes: config.maxResultBytes }),
    ...(config.maxDescriptionBytes !== undefined && { maxDescriptionBytes: config.maxDescriptionBytes }),
    timeoutMs: (config.timeoutSecs ?? DEFAULT_TIMEOUT_SECS) * 1000,
  };
}

function connectionSettings(config: McpEntryConfig) {
  return {
    ...(config.connectTimeoutSecs !== undefined && { connectTimeoutMs: config.connectTimeoutSecs * 1000 }),
    ...(config.reconnectAttempts !== undefined && { reconnectAttempts: config.reconnectAttempts }),
  };
}

/**
 * The MCP kinds, built from YAML when the agent is built (the upstream only wires MCP from code):
 * `tools: [{ kind: mcp }]` gives the server's tools as static tools (fixed at build, like the
 * upstream); `contexts: [{ kind: mcp }]` gives a provider that offers them on every run as the
 * server lists them then, with its resources and prompts. Servers start on build and stop with
 * `close()` (the `raf` CLI calls it when a command ends; stdio servers also die with the process).
 */
/**
 * A stdio server's command and script become protected paths of every workspace (SPEC §9): a
 * model that rewrites `server.mjs` would otherwise run its code as a plain child of `raf` at
 * the next start or restart of the server.
 */
async function protectExecuted(spec: McpServerSpec, context: PluginBuildContext): Promise<void> {
  if (!context.protect) return;
  const files = await executedFiles(spec);
  if (files.length > 0)
    context.protect(files.map((path) => ({ path, reason: `MCP server '${spec.name}'`, readable: true })));
}

/**
 * The store's secret records when the builder has them (`withSecrets()`: the CLI's `--store
 * sqlite:…` / `postgres://…`), else `RAF_MCP_CREDENTIALS` (the CLI sets it to its file store's
 * folder), else the store `RAF_STORE` names, else `.raf`.
 */
function defaultCredentials(context: PluginBuildContext): McpCredentialStore {
  const { env } = context;
  if (context.secrets) return new SecretCredentialStore(context.secrets, tenantOf(env));
  if (env.RAF_MCP_CREDENTIALS) return new FileCredentialStore(env.RAF_MCP_CREDENTIALS);
  return credentialStoreFor(env.RAF_STORE, process.cwd());
}

/** `RAF_TENANT` and `RAF_SECRETS_KEY` as the builder's environment has them. */
function tenantOf(env: Readonly<Record<string, string | undefined>>) {
  return {
    ...(env.RAF_TENANT && { tenant: env.RAF_TENANT }),
    ...(env.RAF_SECRETS_KEY && { key: env.RAF_SECRETS_KEY }),
  };
}

export function mcpPlugin(options: McpPluginOptions = {}): McpPlugin {
  // One catalog per build: a build's entries share connections and one tool budget.
  const catalogs = new WeakMap<object, McpCatalog>();
  const open = new Set<McpCatalog>();
  const catalogFor = (context: PluginBuildContext) => {
    const key = context.buildKey ?? context;
    let catalog = catalogs.get(key);
    if (!catalog) {
      const log = options.log ?? debugSink(context.env);
      catalog = new McpCatalog({
        maxExposedTools: options.maxExposedTools ?? DEFAULT_MAX_EXPOSED_TOOLS,
        ...(context.agentToolNames && { agentToolNames: context.agentToolNames }),
        ...(log && { log }),
        ...(options.clientInfo && { clientInfo: options.clientInfo }),
        credentials: options.credentials ?? defaultCredentials(context),
        ...(options.requestHeaders && { requestHeaders: options.requestHeaders }),
      });
      catalogs.set(key, catalog);
      open.add(catalog);
    }
    return catalog;
  };

  const tools = async (written: Declaration, context: PluginBuildContext): Promise<ITool[]> => {
    const label = `mcp tool${written.name ? ` '${written.name}'` : ''}`;
    const named = resolveNamedServer(written, context.mcpServers, label);
    const decl = named?.decl ?? written;
    const config = parseMcpEntry(decl, 'tool', label);
    // `server_url` beside `config` is the upstream form: one tool per entry, `tool_name ?? name`.
    const upstream = written.serverUrl !== undefined && typeof config.toolName !== 'object';
    const selected = typeof config.toolName === 'string' ? config.toolName : upstream ? decl.name : undefined;
    const settings = toolOptions(config);
    if (selected !== undefined) {
      settings.allow = [selected];
      if (upstream && decl.name !== undefined && decl.name !== selected)
        settings.rename = { [selected]: decl.name };
    }
    const spec = named
      ? serverSpec(config, named.name, named.baseDir)
      : serverSpec(config, upstream ? undefined : decl.name, context.baseDir);
    await protectExecuted(spec, context);
    const catalog = catalogFor(context);
    const entry = await catalog.add(spec, settings, connectionSettings(config), false, context.signal);
    const missing = entry.missing();
    if (missing.length > 0) {
      const offered = entry.connection.tools.map((t) => t.name).join(', ') || '(none)';
      const message = `MCP server '${spec.name}' does not offer ${missing.map((m) => `'${m}'`).join(', ')}; it offers: ${offered}`;
      if (selected !== undefined) throw new ConfigError(message);
      context.warn(message);
    }
    // Fail closed: the tools of an entry are fixed at build, so a name no tool has never matches.
    const unknownGated = entry.unknownApprovalNames();
    if (unknownGated.length > 0) {
      const offered =
        entry
          .tools()
          .map((t) => t.name)
          .join(', ') || '(none)';
      throw new ConfigError(
        `approval_mode names ${unknownGated.map((m) => `'${m}'`).join(', ')}, which MCP server '${spec.name}' does not offer; its tools here: ${offered}`,
      );
    }
    const { tools: built, deferred } = catalog.staticTools(entry);
    if (deferred && built.length > 0) {
      context.warn(
        `MCP tools exceed maxExposedTools (${catalog.maxExposedTools}): the tools of '${spec.name}' and the MCP entries after it are offered through search_tools / call_tool (deferred loading)`,
      );
    }
    return built;
  };

  const contexts = async (written: Declaration, context: PluginBuildContext) => {
    const label = `mcp context${written.name ? ` '${written.name}'` : ''}`;
    const named = resolveNamedServer(written, context.mcpServers, label);
    const decl = named?.decl ?? written;
    const config = parseMcpEntry(decl, 'context', label);
    const spec = serverSpec(config, decl.name ?? named?.name, named?.baseDir ?? context.baseDir);
    await protectExecuted(spec, context);
    const catalog = catalogFor(context);
    const settings = toolOptions(config);
    if (typeof config.toolName === 'string') settings.allow = [config.toolName];
    const entry = await catalog.add(spec, settings, connectionSettings(config), true, context.signal);
    const missing = entry.missing();
    if (missing.length > 0)
      context.warn(
        `MCP server '${spec.name}' does not offer ${missing.map((m) => `'${m}'`).join(', ')} (yet)`,
      );
    const unknownGated = entry.unknownApprovalNames();
    if (unknownGated.length > 0)
      context.warn(
        `approval_mode names ${unknownGated.map((m) => `'${m}'`).join(', ')}, which MCP server '${spec.name}' does not offer (yet)`,
      );
    catalog.offerContent(entry, { resources: config.resources ?? true, prompts: config.prompts ?? true });
    const provider = new McpContextProvider(entry, catalog, {
      instructions: config.instructions ?? true,
      subscribe: config.subscribe ?? [],
      maxResultBytes: config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
    });
    await provider.refresh(context.signal);
    if (catalog.dynamicDeferred()) {
      catalog.warnOnce(
        `MCP tools exceed maxExposedTools (${catalog.maxExposedTools}): the MCP contexts' tools are offered through search_tools / call_tool (deferred loading)`,
        context.warn,
      );
    }
    return provider;
  };

  return {
    specificationVersion: 'v1',
    packageName: '@raf/mcp',
    // What a sub-agent's worker makes the plugin again with; a log sink is code it cannot get.
    options: options.log
      ? false
      : {
          ...(options.maxExposedTools !== undefined && { maxExposedTools: options.maxExposedTools }),
          ...(options.clientInfo && { clientInfo: { ...options.clientInfo } }),
        },
    toolKinds: { mcp: tools },
    contextKinds: { mcp: contexts },
    configSchemas: { tools: { mcp: mcpToolConfigSchema }, contexts: { mcp: mcpContextConfigSchema } },
    async close() {
      const closing = [...open];
      open.clear();
      await Promise.all(closing.map((catalog) => catalog.close()));
    },
  };
}

/** Where a server built from code resolves relative paths, and what cancels its start. */
export interface McpFromCodeOptions extends McpPluginOptions {
  /** Folder `cwd` and `./command` resolve against (default: the process's). */
  baseDir?: string;
  signal?: AbortSignal;
}

function fromCode(options: McpFromCodeOptions) {
  const { baseDir, signal, ...pluginOptions } = options;
  const plugin = mcpPlugin(pluginOptions);
  const warnings: string[] = [];
  const context: PluginBuildContext = {
    baseDir: baseDir ?? process.cwd(),
    env: process.env,
    warn: (message) => warnings.push(message),
    ...(signal && { signal }),
  };
  return { plugin, context, warnings };
}

/**
 * From code, the tools of one server, as `tools: [{ kind: mcp, name, config }]` gives them:
 * `const { tools, close } = await createMcpTools({ name: 'files', command: 'npx', args: [...] })`.
 */
export async function createMcpTools(
  config: McpEntryConfig & { name?: string },
  options: McpFromCodeOptions = {},
): Promise<{ tools: ITool[]; warnings: string[]; close(): Promise<void> }> {
  const { name, ...rest } = config;
  const { plugin, context, warnings } = fromCode(options);
  try {
    const tools = await plugin.toolKinds!.mcp!(
      { kind: 'mcp', ...(name && { name }), config: rest as never },
      context,
    );
    return { tools, warnings, close: () => plugin.close() };
  } catch (error) {
    await plugin.close();
    throw error;
  }
}

/** From code, a server as a context provider (`builder.withContextProvider(...)` / `withContext(...)`). */
export async function createMcpContextProvider(
  config: McpEntryConfig & { name?: string },
  options: McpFromCodeOptions = {},
): Promise<McpContextProvider> {
  const { name, ...rest } = config;
  const { plugin, context } = fromCode(options);
  try {
    return (await plugin.contextKinds!.mcp!(
      { kind: 'mcp', ...(name && { name }), config: rest as never },
      context,
    )) as McpContextProvider;
  } catch (error) {
    await plugin.close();
    throw error;
  }
}
