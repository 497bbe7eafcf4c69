import { isGated } from '../config/approval-mode.js';
import type { ApprovalMode } from '../config/mcp-config.js';
import { safeName } from '../config/server-spec.js';
import type { McpConnection } from '../connection/mcp-connection.js';
import { type ConnectionRoute, McpTool } from '../tools/mcp-tool.js';
import { DEFAULT_MAX_DESCRIPTION_BYTES, DEFAULT_MAX_RESULT_BYTES } from '../tools/result-cap.js';

export interface ServerToolsOptions {
  /** The server's tool names to offer (all when absent). */
  allow?: readonly string[];
  /** `{ remote: local }`. */
  rename?: Readonly<Record<string, string>>;
  approvalMode?: ApprovalMode;
  timeoutMs: number;
  /** What of a result reaches the model (default 128 KiB). */
  maxResultBytes?: number;
  /** Each tool description's cap (default 4 KiB). */
  maxDescriptionBytes?: number;
  /** Per-request credentials: the connection of this call's user (set by the catalog). */
  route?: ConnectionRoute;
}

const TOOL_NAME = /[^A-Za-z0-9_-]/g;
const FITTING = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Local tool names, unique across the agent's MCP servers. A server's name is kept when it is
 * free; a second server offering the same name gets `<server>__<name>`. Names are made to fit
 * the model APIs' rule (letters, digits, `_`, `-`; at most 64).
 */
export class ToolNames {
  private readonly owners = new Map<string, object>();
  private readonly given = new WeakMap<object, Map<string, string>>();

  /** Names the catalog's own tools use (`search_tools`, …): servers get a prefixed name instead. */
  reserve(name: string, owner: object): void {
    this.owners.set(name, owner);
  }

  claim(owner: object, server: string, remote: string, desired: string): string {
    let mine = this.given.get(owner);
    const earlier = mine?.get(remote);
    if (earlier !== undefined) return earlier;
    const fit = (name: string) => name.replace(TOOL_NAME, '_').slice(0, 64) || 'tool';
    // Another of this server's tools may fit to the same name (`a/b` and `a_b`, two 64-character
    // prefixes): one name for two tools let the model's call reach the wrong one.
    const mineTaken = new Set(mine?.values());
    const free = (name: string) => {
      if (mineTaken.has(name)) return false;
      const holder = this.owners.get(name);
      return holder === undefined || holder === owner;
    };
    const prefixed = `${safeName(server)}__${desired}`;
    let name = fit(desired);
    if (!free(name)) name = fit(prefixed);
    for (let n = 2; !free(name); n++) name = fit(`${prefixed.slice(0, 60)}_${n}`);
    this.owners.set(name, owner);
    if (!mine) {
      mine = new Map();
      this.given.set(owner, mine);
    }
    mine.set(remote, name);
    return name;
  }
}

/** One `kind: mcp` entry's view of its server: the allowed tools, renamed and gated as configured. */
export class ServerTools {
  private built: McpTool[] = [];
  private builtVersion = -1;

  constructor(
    readonly connection: McpConnection,
    readonly options: ServerToolsOptions,
    private readonly names: ToolNames,
    /** Context entries: their tools are read again on every run. */
    readonly dynamic: boolean,
  ) {}

  get server(): string {
    return this.connection.name;
  }

  /** The tools for the server's current list (rebuilt when the list changed). */
  tools(): readonly McpTool[] {
    if (this.builtVersion === this.connection.toolsVersion) return this.built;
    const { allow, rename, approvalMode, timeoutMs, maxResultBytes, maxDescriptionBytes, route } =
      this.options;
    const allowed = allow ? new Set(allow) : undefined;
    const offered = this.connection.tools.filter((remote) => !allowed || allowed.has(remote.name));
    const desired = (remote: { name: string }) => rename?.[remote.name] ?? remote.name;
    // Names that fit as they are claim first: `ec_ho` keeps its name beside an `ec/ho`.
    const fits = (remote: { name: string }) => FITTING.test(desired(remote));
    for (const remote of [...offered.filter(fits), ...offered.filter((r) => !fits(r))])
      this.names.claim(this, this.server, remote.name, desired(remote));
    this.built = offered.map((remote) => {
      const name = this.names.claim(this, this.server, remote.name, desired(remote));
      return new McpTool(this.connection, remote, {
        name,
        gated: isGated(approvalMode, remote.name, name),
        timeoutMs,
        maxResultBytes: maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
        maxDescriptionBytes: maxDescriptionBytes ?? DEFAULT_MAX_DESCRIPTION_BYTES,
        ...(route && { route }),
      });
    });
    this.builtVersion = this.connection.toolsVersion;
    return this.built;
  }

  /**
   * Names in a per-tool `approval_mode` that are neither a tool the server offers nor the local
   * name of one: a misspelt `always: [delete_file]` would let the real tool run unasked.
   */
  unknownApprovalNames(): string[] {
    const mode = this.options.approvalMode;
    if (mode === undefined || typeof mode === 'string') return [];
    const known = new Set(this.connection.tools.map((t) => t.name));
    for (const tool of this.tools()) known.add(tool.name);
    const named = [...(mode.always ?? []), ...(mode.never ?? [])];
    return [...new Set(named)].filter((name) => !known.has(name));
  }

  /** Allow-listed or renamed names the server does not offer (typos, or tools it dropped). */
  missing(): string[] {
    const offered = new Set(this.connection.tools.map((t) => t.name));
    const named = [...(this.options.allow ?? []), ...Object.keys(this.options.rename ?? {})];
    return [...new Set(named)].filter((name) => !offered.has(name));
  }
}
