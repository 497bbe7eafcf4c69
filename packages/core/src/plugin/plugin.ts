import type { ZodType } from 'zod';
import type { IChatClient } from '../chat-client/chat-client.js';
import type { IContextProvider } from '../context/context-provider.js';
import { PluginError } from '../errors/error-classes.js';
import type { JSONValue } from '../json/json.js';
import type { ProtectedPath } from '../scope/workspace-scope.js';
import type { SecretStore } from '../session/secret-store.js';
import type { ITool } from '../tool/tool.js';
import type { ToolManifest } from '../tool/tool-manifest.js';

/** Where a declaration came from, for error messages (`agent.yaml:14:5`). */
export interface SourcePosition {
  file?: string;
  line?: number;
  column?: number;
}

/** What a factory gets besides the declaration. */
export interface PluginBuildContext {
  /** Folder relative paths resolve against (the YAML file's folder). */
  baseDir: string;
  signal?: AbortSignal;
  env: Readonly<Record<string, string | undefined>>;
  /** A warning placed at the declaration (`agent.yaml:14:5`); it shows in `validate` and `inspect`. */
  warn(message: string): void;
  /**
   * The same object for every factory call of one `build()`/`validate()` (each entry gets its own
   * context copy, so key state shared across entries — one connection per server — by this).
   */
  buildKey?: object;
  /** Strict mode: what would only warn (a missing folder, an unknown key) is an error. */
  strict?: boolean;
  /** `validate()`/`explain()`: check everything, but create nothing on disk or over the network. */
  dryRun?: boolean;
  /** The agent's chat client, for contexts that call the model (compression `summarize`). */
  chatClient?: IChatClient;
  /**
   * The agent's own defaults for a kind's config, as written (either spelling): `sandbox:` for
   * `kind: code` (SPEC §8). The plugin merges them under the entry's `config` (the entry wins).
   */
  agentDefaults?: { sandbox?: Record<string, unknown> };
  /** Paths a workspace built here protects (the agent definition file, the sessions folder). */
  protectedPaths?: readonly ProtectedPath[];
  /**
   * Declares what this entry executes or loads from disk (a stdio server's command and script, a
   * spec file, a skills folder): every workspace of the agent then protects it (`readable: true`
   * is the usual kind), so the model cannot rewrite code or definitions `raf` runs later (SPEC §9).
   * Relative paths resolve against `baseDir`. Absent when nothing collects them (a factory
   * called from code).
   */
  protect?(paths: readonly ProtectedPath[]): void;
  /**
   * A client for another model declaration (`kind` = the provider, as a model factory gets it),
   * through the registered model providers; `undefined` when no plugin provides that provider.
   * Used by contexts with a model of their own (super-brain's `memoryModel`).
   */
  resolveModel?(model: Declaration): Promise<IChatClient | undefined>;
  /**
   * The names the agent's own tools use (declared, built-in, injected by a context; MCP servers'
   * tools left out), known once the whole agent is planned (empty before). A plugin whose tools
   * come from elsewhere (an MCP server's `list_changed`) checks new names against it at run time.
   */
  agentToolNames?(): ReadonlySet<string>;
  /**
   * MCP servers by name, in the `mcpServers` format of `mcp.json` (Claude Desktop, Cursor, VS
   * Code: `{ command, args, env }` or `{ url, headers }`): from the agent file's `mcpServers:`, a
   * `mcp.json` beside it, `--mcp-config` or `builder.withMcpServer()`. An entry names one with
   * `server: NAME` or `stdio://NAME`.
   */
  mcpServers?: Readonly<Record<string, NamedMcpServer>>;
  /**
   * The state store's secret records (`sqlite:`, `postgres://` stores), where a plugin keeps what
   * a user logged in with (MCP OAuth tokens): `builder.withSecrets()`, the CLI's `--store`.
   */
  secrets?: SecretStore;
}

/** One server of the `mcpServers` map, with where it was declared (shown by `raf inspect`). */
export interface NamedMcpServer {
  /** The server's fields as written (`command`/`args`/`env`/`cwd`, or `url`/`headers`/`type`). */
  config: Record<string, JSONValue>;
  /** Where it came from: `agent.yaml`, `mcp.json`, `--mcp-config servers.json`, `code`. */
  source: string;
  /** The folder its relative `command` and `cwd` resolve against (the declaring file's). */
  baseDir: string;
}

/** One YAML entry as the plugin receives it: `kind`, optional `name`, the rest as given. */
export interface Declaration {
  kind: string;
  name?: string;
  config?: Record<string, JSONValue>;
  position?: SourcePosition;
  [key: string]: unknown;
}

export type ToolKindFactory = (decl: Declaration, context: PluginBuildContext) => ITool[] | Promise<ITool[]>;
/** Returns `undefined` to add nothing (after `context.warn`), as the upstream skips a provider it cannot build. */
export type ContextKindFactory = (
  decl: Declaration,
  context: PluginBuildContext,
) => IContextProvider | undefined | Promise<IContextProvider | undefined>;
export type ModelProviderFactory = (
  decl: Declaration,
  context: PluginBuildContext,
) => IChatClient | Promise<IChatClient>;

/**
 * An extension package's contribution, registered explicitly with `builder.use(plugin)`.
 * `specificationVersion` lets the registry refuse plugins written for another contract.
 */
export interface RafPlugin {
  specificationVersion: 'v1';
  /** The npm package, named in "install this" hints. */
  packageName: string;
  /**
   * The options the plugin was made with, when they are plain data (`webPlugin({ … })`): a
   * sub-agent's worker process makes the plugin again from its package with these. `false` when
   * an option is code (a resolver, a log sink), which no other process can get: the sub-agents
   * that use its kinds then run in the parent's process. Absent: made without options.
   */
  options?: JSONValue | false;
  toolKinds?: Record<string, ToolKindFactory>;
  /** Tool names each tool kind expands to when a YAML entry has no `name` (rule 6). */
  toolExpansions?: Record<string, readonly string[]>;
  contextKinds?: Record<string, ContextKindFactory>;
  /**
   * The manifest of each tool this plugin's kinds make, by tool name: what global catalogs
   * (`raf tools`, the studio's Tools page) show before any agent is built. The tools themselves
   * carry the same objects; the manifest lives with the extension, not in the framework.
   */
  toolManifests?: Readonly<Record<string, ToolManifest>>;
  modelProviders?: Record<string, ModelProviderFactory>;
  /**
   * The `config:` schema of each tool and context kind (a zod object), checked before the factory
   * runs, which then gets the parsed config with canonical key names. Unknown keys warn (errors in
   * strict mode); a near miss of a key marked `.meta({ policyBearing: true })` is always an error
   * (a misspelt `policy` must not run under the default); `.meta({ aliases: ['allowed_commands'] })`
   * accepts another spelling. The upstream snake_case of every key is accepted.
   */
  configSchemas?: {
    tools?: Record<string, ZodType>;
    contexts?: Record<string, ZodType>;
  };
}

export const PLUGIN_SPECIFICATION_VERSION = 'v1';

/** Checks a plugin object at registration; a wrong version or shape is a `PluginError`. */
export function definePlugin(plugin: RafPlugin): RafPlugin {
  const candidate = plugin as Partial<RafPlugin> | null;
  if (!candidate || typeof candidate !== 'object') throw new PluginError('plugin must be an object');
  if (candidate.specificationVersion !== PLUGIN_SPECIFICATION_VERSION) {
    throw new PluginError(
      `plugin ${String(candidate.packageName ?? '(unnamed)')} has specificationVersion ${JSON.stringify(
        candidate.specificationVersion,
      )}; this RAF supports "${PLUGIN_SPECIFICATION_VERSION}"`,
    );
  }
  if (typeof candidate.packageName !== 'string' || candidate.packageName === '') {
    throw new PluginError('plugin must name its npm package in "packageName"');
  }
  return plugin;
}
