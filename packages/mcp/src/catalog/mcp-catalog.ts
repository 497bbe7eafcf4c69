import type { ITool } from '@raf/core';
import type { McpCredentialStore } from '../auth/credential-store.js';
import { type McpServerSpec, secretValues, specKey } from '../config/server-spec.js';
import { McpConnection } from '../connection/mcp-connection.js';
import { resolveContextHeaders, UserConnections } from '../connection/per-user.js';
import { type McpLogSink, ServerLog } from '../connection/server-log.js';
import { createContentTools, GET_MCP_PROMPT, READ_MCP_RESOURCE } from '../tools/content-tools.js';
import { CALL_TOOL, createDeferredTools, SEARCH_TOOLS } from '../tools/deferred-tools.js';
import type { ConnectionRoute, McpTool } from '../tools/mcp-tool.js';
import { DEFAULT_MAX_RESULT_BYTES } from '../tools/result-cap.js';
import { ServerTools, type ServerToolsOptions, ToolNames } from './server-tools.js';

export const DEFAULT_MAX_EXPOSED_TOOLS = 40;

export interface CatalogOptions {
  maxExposedTools: number;
  /** The agent's own tool names (`PluginBuildContext.agentToolNames`): a server's tool never takes one. */
  agentToolNames?: () => ReadonlySet<string>;
  log?: McpLogSink;
  clientInfo?: { name: string; version: string };
  /** Where OAuth servers' tokens are kept. */
  credentials?: McpCredentialStore;
  /** Per-request headers from code, for every HTTP server (merged over its configured ones). */
  requestHeaders?: RequestHeaders;
}

/** `mcpPlugin({ requestHeaders })`: headers for one call from its run context; none: the shared connection. */
export type RequestHeaders = (
  server: string,
  context: unknown,
) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>;

export interface ConnectionSettings {
  connectTimeoutMs?: number;
  reconnectAttempts?: number;
}

/** What a context entry offers besides tools. */
export interface ContentSettings {
  resources: boolean;
  prompts: boolean;
}

/**
 * The MCP servers of one agent (one build): connections shared by entries that name the same
 * server, tool names unique across servers, and the "too many tools" decision. `tools:` entries
 * are fixed at build: while the running total stays within `maxExposedTools` their tools are
 * listed; an entry that would pass it, and every one after, goes behind `search_tools` /
 * `call_tool`. `contexts:` entries are counted again on every run (their lists can change).
 */
export class McpCatalog {
  readonly names = new ToolNames();
  private readonly connections = new Map<string, McpConnection>();
  private readonly routes = new Map<McpConnection, ConnectionRoute | null>();
  private readonly perUser: UserConnections<McpConnection>[] = [];
  private readonly entries: ServerTools[] = [];
  private readonly content = new Map<ServerTools, ContentSettings>();
  private maxExposed: number;
  private staticExposed = 0;
  private staticDeferred: ServerTools[] = [];
  /** Set once the pair was handed out as static tools (it then serves context entries too). */
  private pairIsStatic = false;
  private readonly pair: readonly [ITool, ITool];
  private readonly contentTools: { readResource: ITool; getPrompt: ITool };
  private readonly warned = new Set<string>();

  constructor(private readonly options: CatalogOptions) {
    this.maxExposed = options.maxExposedTools;
    this.pair = createDeferredTools({ deferredTools: () => this.deferredTools() });
    this.contentTools = createContentTools({
      servers: (what) =>
        [...this.content].filter(([, settings]) => settings[what]).map(([entry]) => entry.connection),
      timeoutMs: (server) => this.entries.find((e) => e.connection === server)?.options.timeoutMs ?? 60_000,
      maxResultBytes: (server) =>
        this.entries.find((e) => e.connection === server)?.options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
    });
    for (const name of [SEARCH_TOOLS, CALL_TOOL, READ_MCP_RESOURCE, GET_MCP_PROMPT])
      this.names.reserve(name, this);
  }

  get maxExposedTools(): number {
    return this.maxExposed;
  }

  /** Connects (once per server) and lists the server's tools. */
  async add(
    spec: McpServerSpec,
    tools: ServerToolsOptions & { maxExposedTools?: number },
    connection: ConnectionSettings,
    dynamic: boolean,
    signal?: AbortSignal,
  ): Promise<ServerTools> {
    const key = specKey(spec);
    let shared = this.connections.get(key);
    if (!shared) {
      shared = this.connection(spec, connection);
      this.connections.set(key, shared);
    }
    await shared.connect(signal);
    const route = this.routeFor(shared, connection);
    // The smallest limit given anywhere holds for the agent.
    if (tools.maxExposedTools !== undefined)
      this.maxExposed = Math.min(this.maxExposed, tools.maxExposedTools);
    const entry = new ServerTools(shared, route ? { ...tools, route } : tools, this.names, dynamic);
    this.entries.push(entry);
    return entry;
  }

  private connection(
    spec: McpServerSpec,
    settings: ConnectionSettings,
    extraSecrets: string[] = [],
  ): McpConnection {
    return new McpConnection(spec, {
      log: new ServerLog(spec.name, [...secretValues(spec), ...extraSecrets], this.options.log),
      ...settings,
      ...(this.options.clientInfo && { clientInfo: this.options.clientInfo }),
      ...(this.options.credentials && { credentials: this.options.credentials }),
    });
  }

  /**
   * Per-request credentials (`=Context.path` headers, `requestHeaders` from code): each call goes
   * through the connection of its credentials, never another user's. The shared connection (built
   * without them) lists the tools; a call whose run gives no credentials fails instead of using it
   * (for `=Context` headers) or uses it (a `requestHeaders` that returned none).
   */
  private routeFor(shared: McpConnection, settings: ConnectionSettings): ConnectionRoute | undefined {
    const known = this.routes.get(shared);
    if (known !== undefined) return known ?? undefined;
    const { spec } = shared;
    const callback = this.options.requestHeaders;
    if (spec.transport === 'stdio' || (!spec.contextHeaders && !callback)) {
      this.routes.set(shared, null);
      return undefined;
    }
    const users = new UserConnections((headers) =>
      this.connection(
        { ...spec, headers: { ...spec.headers, ...headers } },
        settings,
        Object.values(headers),
      ),
    );
    this.perUser.push(users);
    const route: ConnectionRoute = async (context) => {
      const headers = {
        ...(spec.contextHeaders && resolveContextHeaders(spec.name, spec.contextHeaders, context.context)),
        ...((await callback?.(spec.name, context.context)) ?? {}),
      };
      return Object.keys(headers).length > 0 ? users.get(headers) : shared;
    };
    this.routes.set(shared, route);
    return route;
  }

  /** A context entry's resources and prompts, offered through `read_mcp_resource` / `get_mcp_prompt`. */
  offerContent(entry: ServerTools, settings: ContentSettings): void {
    const capabilities = entry.connection.serverCapabilities;
    this.content.set(entry, {
      resources: settings.resources && Boolean(capabilities?.resources),
      prompts: settings.prompts && Boolean(capabilities?.prompts),
    });
  }

  contentSettings(entry: ServerTools): ContentSettings | undefined {
    return this.content.get(entry);
  }

  /** A `tools:` entry at build: its tools, or the deferred pair (once) when the limit is passed. */
  staticTools(entry: ServerTools): { tools: ITool[]; deferred: boolean } {
    const tools = entry.tools();
    if (this.staticDeferred.length === 0 && this.staticExposed + tools.length <= this.maxExposed) {
      this.staticExposed += tools.length;
      return { tools: [...tools], deferred: false };
    }
    this.staticDeferred.push(entry);
    if (this.pairIsStatic) return { tools: [], deferred: true };
    this.pairIsStatic = true;
    return { tools: [...this.pair], deferred: true };
  }

  private dynamicEntries(): ServerTools[] {
    return this.entries.filter((e) => e.dynamic);
  }

  /** Whether the context entries' tools go behind the pair on this run. */
  dynamicDeferred(): boolean {
    const dynamic = this.dynamicEntries();
    const total = this.staticExposed + dynamic.reduce((sum, e) => sum + e.tools().length, 0);
    return dynamic.length > 0 && total > this.maxExposed;
  }

  /**
   * The entry's tools whose names the agent's own tools have (the workspace's `read_file`, …):
   * refused, at build by the planner and here for a name a later `list_changed` brought.
   */
  refusedTools(entry: ServerTools): McpTool[] {
    const taken = this.options.agentToolNames?.();
    if (!taken || taken.size === 0) return [];
    return entry.tools().filter((tool) => taken.has(tool.name));
  }

  /** The tools a context entry injects now: its own, or (the first entry) the deferred pair; plus the content tools (the first entry offering them). */
  injectedTools(entry: ServerTools): ITool[] {
    const dynamic = this.dynamicEntries();
    const tools: ITool[] = [];
    if (!this.dynamicDeferred()) {
      const refused = new Set(this.refusedTools(entry));
      tools.push(...entry.tools().filter((tool) => !refused.has(tool)));
    } else if (!this.pairIsStatic && dynamic[0] === entry) tools.push(...this.pair);
    const offering = (what: 'resources' | 'prompts') => dynamic.find((e) => this.content.get(e)?.[what]);
    if (offering('resources') === entry) tools.push(this.contentTools.readResource);
    if (offering('prompts') === entry) tools.push(this.contentTools.getPrompt);
    return tools;
  }

  /** Every tool behind `search_tools` / `call_tool` right now. */
  deferredTools(): McpTool[] {
    const entries = [...this.staticDeferred, ...(this.dynamicDeferred() ? this.dynamicEntries() : [])];
    return entries.flatMap((e) => {
      const refused = new Set(e.dynamic ? this.refusedTools(e) : []);
      return e.tools().filter((tool) => !refused.has(tool));
    });
  }

  /** Reports a build warning once per build, however many entries run into it. */
  warnOnce(message: string, warn: (message: string) => void): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    warn(message);
  }

  async close(): Promise<void> {
    await Promise.all([
      ...[...this.connections.values()].map((c) => c.close()),
      ...this.perUser.map((users) => users.close()),
    ]);
  }
}
