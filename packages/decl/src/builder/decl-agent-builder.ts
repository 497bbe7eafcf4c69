import { resolve } from 'node:path';
import type { IContextProvider, ITool, JSONValue, ProtectedPath, RafPlugin, SecretStore } from '@raf/core';
import {
  type ChatClientAgent,
  type GovernanceData,
  type GovernanceSource,
  ToolGovernance,
} from '@raf/framework';
import type { AgentLike, WorkflowAgent } from '@raf/workflow';
import { DeclError, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Environment } from '../env/resolve-env.js';
import type { AgentExplanation } from '../explain/explain.js';
import {
  type LoadedDefinition,
  loadDefinitionFromFile,
  loadDefinitionFromObject,
  loadDefinitionFromText,
} from '../load/load-definition.js';
import { corePlugin } from '../registry/core-plugin.js';
import { installedExtensions } from '../registry/extension-loader.js';
import { PluginRegistry } from '../registry/plugin-registry.js';
import type { ToolFactory } from '../resolve/tool-resolver.js';
import { planAgent } from './agent-plan.js';
import type { AssemblySettings } from './assemble-agent.js';
import { collectMcpServers } from './mcp-servers.js';
import { orchestrationOf } from './orchestration.js';
import type { ModelOverride, NamedConnection } from './plan-model.js';
import { type PlanWithSubAgents, planWithSubAgents } from './plan-sub-agents.js';
import type { CompositePlan } from './plan-workflow.js';

// Building and explaining load on first use what `validate()` never needs (`raf validate` is a
// cold start: every module it loads costs compile time), and so do workflow files and graphs.
const assembly = () => import('./assemble-agent.js');
const workflows = () => import('./plan-workflow.js');

export interface ValidationReport {
  ok: boolean;
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /** For a workflow file or an agent with sub-agents: `orchestration(pipeline, 6 sub-agents)`, `workflow(3 actions, 4 nodes)`. */
  orchestration?: string;
}

/** In file order (a stable sort: diagnostics of other files keep their place). */
const byPosition = (diagnostics: readonly Diagnostic[]): Diagnostic[] =>
  [...diagnostics].sort((a, b) => (a.file === b.file ? a.line - b.line || a.column - b.column : 0));

export interface BuildOptions {
  signal?: AbortSignal;
  /**
   * The file's warnings (unknown keys without strict mode, a skipped skills folder), in
   * `validate()`'s order: a build that succeeds says nothing about them otherwise.
   */
  onWarnings?: (warnings: Diagnostic[]) => void;
}

/** Where the builder's agent comes from. */
type Source =
  | { type: 'text'; text: string; file?: string; format?: 'yaml' | 'json' | 'toml' }
  | { type: 'file'; path: string }
  | { type: 'object'; value: unknown };

/**
 * What strict mode turns into errors: unknown keys (top level and `config:`), and what is
 * otherwise skipped with a warning (a missing skills folder). `strictMode()` sets both.
 */
export interface StrictOptions {
  unknownKeys?: boolean;
  missingFolders?: boolean;
}

/**
 * Builds an agent from a YAML/JSON/TOML file or an object:
 * `await new DeclAgentBuilder().fromYamlFile('agent.yaml').use(webPlugin()).build()`.
 * `validate()` reports every problem at once; `explain()` returns the effective plan.
 */
export class DeclAgentBuilder {
  private source: Source | undefined;
  private readonly registry = new PluginRegistry().use(corePlugin);
  private readonly factories = new Map<string, ToolFactory>();
  private readonly codeTools = new Map<string, ToolFactory>();
  private readonly providers: IContextProvider[] = [];
  private readonly connections = new Map<string, NamedConnection>();
  private modelOverride: ModelOverride = {};
  private variables: Record<string, unknown> = {};
  private env: Environment | undefined;
  private strict: Required<StrictOptions> = { unknownKeys: false, missingFolders: false };
  private readonly protectedPaths: ProtectedPath[] = [];
  private secrets: SecretStore | undefined;
  private governance: GovernanceSource | string | undefined;
  private cached: Promise<LoadedDefinition> | undefined;
  private readonly workflowAgents = new Map<string, AgentLike>();
  private readonly mcpServers = new Map<string, Record<string, JSONValue>>();
  private mcpConfigFile: string | undefined;
  // What `close()` ends: the agents built here and the plugins registered (an MCP plugin's servers).
  private readonly owned = new Set<unknown>();

  fromYaml(text: string, file = 'agent.yaml'): this {
    return this.setSource({ type: 'text', text, file, format: 'yaml' });
  }

  fromJson(text: string, file = 'agent.json'): this {
    return this.setSource({ type: 'text', text, file, format: 'json' });
  }

  fromToml(text: string, file = 'agent.toml'): this {
    return this.setSource({ type: 'text', text, file, format: 'toml' });
  }

  /** A file; the format comes from its extension; relative paths in it resolve against its folder. */
  fromFile(path: string): this {
    return this.setSource({ type: 'file', path });
  }

  fromYamlFile(path: string): this {
    return this.fromFile(path);
  }

  fromJsonFile(path: string): this {
    return this.fromFile(path);
  }

  fromObject(value: unknown): this {
    return this.setSource({ type: 'object', value });
  }

  private setSource(source: Source): this {
    this.source = source;
    this.cached = undefined;
    return this;
  }

  /** Registers an extension's kinds (rule 0); nothing registers itself on import. */
  use(plugin: RafPlugin): this {
    this.registry.use(plugin);
    this.owned.add(plugin);
    return this;
  }

  /**
   * Opt-in: before planning, registers every installed `@raf/*` extension whose kinds the agent
   * file mentions (as the `raf` CLI does), each with its default options; extensions already
   * registered with `use()` keep theirs. Looked up from `@raf/decl`'s own install, then in the
   * agent file's project. Explicit `use(webPlugin())` stays the way to pass options.
   */
  useInstalled(): this {
    this.installed = true;
    return this;
  }

  private installed = false;
  private installedLoaded: Promise<void> | undefined;

  private registerInstalled(loaded: LoadedDefinition, baseDir: string | undefined): Promise<void> {
    this.installedLoaded ??= (async () => {
      const text = JSON.stringify(loaded.normalized ?? loaded.workflow ?? {});
      const plugins = await installedExtensions(text, baseDir ?? process.cwd(), {
        skip: this.registry.packages,
      });
      for (const plugin of plugins) this.registry.use(plugin);
    })();
    return this.installedLoaded;
  }

  /**
   * An MCP server the file can name (`server: NAME`, `server_url: stdio://NAME`), in the
   * `mcpServers` format of `mcp.json`: `{ command, args, env }` or `{ url, headers }`. Replaces a
   * server of the same name from the file, its `mcp.json` or `withMcpConfig()`.
   */
  withMcpServer(name: string, config: Record<string, JSONValue>): this {
    this.mcpServers.set(name, config);
    this.cached = undefined;
    return this;
  }

  /** A `mcp.json`-style file (`{ "mcpServers": { … } }`) whose servers the file can name (`--mcp-config`). */
  withMcpConfig(file: string): this {
    this.mcpConfigFile = resolve(file);
    this.cached = undefined;
    return this;
  }

  /** A factory for a YAML `kind: function|custom` tool with this name. */
  registerFactory(name: string, factory: ToolFactory): this {
    this.factories.set(name, factory);
    return this;
  }

  /**
   * A tool from code. Given to the agent directly and never routed to a workspace (the mixed
   * mode); when the YAML also declares `kind: function, name`, the YAML entry is used instead.
   */
  withTool(name: string, factory: ToolFactory | ITool): this {
    const make: ToolFactory = typeof factory === 'function' ? factory : () => factory;
    this.factories.set(name, make);
    this.codeTools.set(name, make);
    return this;
  }

  /** A provider from code, placed after the YAML's contexts. */
  withContext(provider: IContextProvider): this {
    this.providers.push(provider);
    return this;
  }

  /** The target of `connection: { kind: reference, name }`; a reference to an unregistered name is an error. */
  withConnection(name: string, connection: NamedConnection): this {
    this.connections.set(name, connection);
    return this;
  }

  /**
   * Overrides `model`, beating the file (the CLI's `--model`, `--base-url`). Provider variables
   * such as `OPENAI_BASE_URL` are not overrides: they fill only what the file leaves empty.
   */
  withModel(override: ModelOverride): this {
    this.modelOverride = { ...this.modelOverride, ...override };
    return this;
  }

  /** An agent a `kind: workflow` file's `InvokeAgent` action calls by this name. */
  withWorkflowAgent(name: string, agent: AgentLike): this {
    this.workflowAgents.set(name, agent);
    return this;
  }

  /** Values for `template: mustache` instructions (`--var k=v`). */
  withVariables(variables: Record<string, unknown>): this {
    this.variables = { ...this.variables, ...variables };
    return this;
  }

  /** Where `$VAR` and the providers' variables (`OPENAI_API_KEY`, …) come from (default `process.env`). */
  withEnvironment(env: Environment): this {
    this.env = env;
    this.cached = undefined;
    return this;
  }

  /**
   * Paths the agent's workspaces protect besides the agent file itself (which a file source
   * protects on its own): the file tools neither read nor write them and a sandboxed command
   * never sees them. The CLI passes its sessions folder: `.protectPaths([dir], 'sessions')`.
   */
  protectPaths(paths: readonly string[], reason = 'protected'): this {
    for (const path of paths) this.protectedPaths.push({ path: resolve(path), reason });
    return this;
  }

  /**
   * Tool governance (SPEC §7.1): a store, fixed governance, or the path of a JSON file. Default:
   * `.raf/governance.json` in the agent file's folder (what `raf tools` edits), read before each
   * run. The file's `toolPolicy` applies over it.
   */
  withGovernance(source: GovernanceSource | GovernanceData | string): this {
    this.governance =
      typeof source === 'string' || source instanceof ToolGovernance || 'load' in source
        ? (source as GovernanceSource | string)
        : new ToolGovernance(source as GovernanceData);
    return this;
  }

  /**
   * The state store's secret records (`createStore(url).secrets`): plugins keep what a user logged
   * in with there (MCP OAuth tokens), not in local files. Default: none (`.raf/mcp-auth`).
   */
  withSecrets(secrets: SecretStore): this {
    this.secrets = secrets;
    return this;
  }

  /** Unknown keys and missing folders become errors instead of warnings (or only the ones named). */
  strictMode(strict: boolean | StrictOptions = true): this {
    this.strict =
      typeof strict === 'boolean'
        ? { unknownKeys: strict, missingFolders: strict }
        : { unknownKeys: strict.unknownKeys ?? false, missingFolders: strict.missingFolders ?? false };
    this.cached = undefined;
    return this;
  }

  private load(): Promise<LoadedDefinition> {
    const source = this.source;
    if (!source) {
      return Promise.resolve({
        diagnostics: [
          {
            file: '(builder)',
            line: 1,
            column: 1,
            path: '',
            message: 'no agent source: call fromYamlFile(), fromYaml() or fromObject() first',
            severity: 'error',
          },
        ],
      });
    }
    const options = { strict: this.strict.unknownKeys, ...(this.env && { env: this.env }) };
    this.cached ??=
      source.type === 'file'
        ? loadDefinitionFromFile(resolve(source.path), options).then((loaded) => ({
            ...loaded,
            diagnostics: loaded.diagnostics.map((d) => ({
              ...d,
              file: d.file === resolve(source.path) ? source.path : d.file,
            })),
            ...(loaded.document && { document: { ...loaded.document, file: source.path } }),
          }))
        : source.type === 'text'
          ? loadDefinitionFromText(source.text, {
              ...options,
              ...(source.file && { file: source.file }),
              ...(source.format && { format: source.format }),
            })
          : Promise.resolve(loadDefinitionFromObject(source.value, options));
    return this.cached;
  }

  private async plan(
    options: { signal?: AbortSignal; dryRun?: boolean } = {},
  ): Promise<PlanWithSubAgents & { composite?: CompositePlan }> {
    const { planned, serverDiagnostics } = await this.planned(options);
    return serverDiagnostics.length === 0
      ? planned
      : { ...planned, diagnostics: [...serverDiagnostics, ...planned.diagnostics] };
  }

  /** The `mcpServers` map: `mcp.json` beside the file, the file's own, `withMcpConfig()`, code. */
  private collectServers(loaded: LoadedDefinition) {
    const source = this.source;
    const written = loaded.normalized as { mcpServers?: unknown } | undefined;
    const declared = written?.mcpServers ?? loaded.workflow?.mcpServers ?? loaded.workflow?.mcp_servers;
    return collectMcpServers({
      ...(source?.type === 'file' && { agentFile: resolve(source.path) }),
      ...(declared !== undefined && {
        declared: { value: declared, document: loaded.document, file: loaded.document?.file ?? '(agent)' },
      }),
      ...(this.mcpConfigFile && { configFile: this.mcpConfigFile }),
      code: this.mcpServers,
    });
  }

  private async planned(options: { signal?: AbortSignal; dryRun?: boolean }): Promise<{
    planned: PlanWithSubAgents & { composite?: CompositePlan };
    serverDiagnostics: Diagnostic[];
  }> {
    const loaded = await this.load();
    const source = this.source;
    const folder = source?.type === 'file' ? resolve(source.path, '..') : undefined;
    this.registry.projectFolder = folder;
    if (this.installed) await this.registerInstalled(loaded, folder);
    const servers = await this.collectServers(loaded);
    const inputs = {
      loaded,
      registry: this.registry,
      factories: this.factories,
      codeTools: this.codeTools,
      codeProviders: this.providers,
      model: this.modelOverride,
      connections: this.connections,
      variables: this.variables,
      strict: this.strict.missingFolders,
      strictKeys: this.strict.unknownKeys,
      ...(this.env && { env: this.env }),
      ...(options.dryRun && { dryRun: true }),
      ...(source?.type === 'file' && { baseDir: resolve(source.path, '..') }),
      protectedPaths: [
        ...(source?.type === 'file' ? [{ path: resolve(source.path), reason: 'agent definition' }] : []),
        // A server list names commands the agent starts: the model must not rewrite it.
        ...servers.files.map((path) => ({ path, reason: 'MCP server list' })),
        ...this.protectedPaths,
      ],
      mcpServers: servers.servers,
      ...(this.secrets && { secrets: this.secrets }),
      ...(options.signal && { signal: options.signal }),
    };
    const composite = { ...inputs, workflowAgents: this.workflowAgents };
    const serverDiagnostics = servers.diagnostics;
    if (loaded.workflow)
      return {
        planned: { ...(await (await workflows()).planWorkflowFile(composite)), subAgents: [] },
        serverDiagnostics,
      };
    // magentic (the default) delegates to sub-agents in workers; the other modes are graphs.
    const subAgents = (loaded.normalized as { subAgents?: unknown[] } | undefined)?.subAgents;
    const metadata = (loaded.definition ?? loaded.partial)?.metadata as Record<string, unknown> | undefined;
    if (
      !Array.isArray(subAgents) ||
      subAgents.length === 0 ||
      orchestrationOf(metadata).orchestration.mode === 'magentic'
    )
      return { planned: await planWithSubAgents(inputs), serverDiagnostics };
    const planned = await planAgent(inputs);
    const orchestrated = await (await workflows()).planOrchestration(composite, planned);
    return {
      planned: {
        ...orchestrated,
        subAgents: [],
        ...(planned.plan && orchestrated.composite && { plan: planned.plan }),
      },
      serverDiagnostics,
    };
  }

  /** Every problem at once, without calling a model. */
  async validate(): Promise<ValidationReport> {
    const { diagnostics, composite, subAgents } = await this.plan({ dryRun: true });
    const n = subAgents.length;
    const summary =
      composite?.summary ??
      (n > 0 ? `orchestration(magentic, ${n} sub-agent${n === 1 ? '' : 's'})` : undefined);
    const ordered = byPosition(diagnostics);
    const errors = ordered.filter((d) => d.severity === 'error');
    return {
      ok: errors.length === 0,
      errors,
      warnings: ordered.filter((d) => d.severity === 'warning'),
      ...(summary && { orchestration: summary }),
    };
  }

  /** The effective plan (SPEC §11.1, `raf inspect --json`) with its runtime diagnostic; throws `DeclError` on errors. */
  async explain(): Promise<AgentExplanation> {
    const explained = await this.explainPlan();
    // Where each named MCP server comes from (`mcp.json`, the file, `--mcp-config`, code).
    const { servers } = await this.collectServers(await this.load());
    const named = Object.entries(servers).map(([name, s]) => ({
      name,
      source: s.source,
      transport: typeof s.config.url === 'string' ? ('http' as const) : ('stdio' as const),
    }));
    return named.length > 0 ? { ...explained, mcpServers: named } : explained;
  }

  private async explainPlan(): Promise<AgentExplanation> {
    const planned = await this.plan({ dryRun: true });
    const { assembleAgent, governanceSource } = await assembly();
    const settings = this.settings();
    if (planned.composite) {
      const { explainComposite } = await import('../explain/explain-workflow.js');
      const { agentFromPlan } = await import('./agent-from-plan.js');
      return explainComposite(planned.composite, planned.plan, (plan) =>
        agentFromPlan(plan, { governance: governanceSource(settings, plan.baseDir) }),
      );
    }
    if (!planned.plan) throw new DeclError(planned.diagnostics);
    const { explainPlan } = await import('../explain/explain.js');
    return explainPlan(planned.plan, assembleAgent(planned, settings));
  }

  /**
   * The agent; throws `DeclError` (every problem with file:line:column) when the file is wrong.
   * A prompt agent, or a magentic coordinator; a workflow file and the other orchestration modes
   * build a `WorkflowAgent`: use `buildAgent()` for any file.
   */
  async build(options: BuildOptions = {}): Promise<ChatClientAgent> {
    const agent = await this.buildAgent(options);
    if (!('chatClient' in agent))
      throw new DeclError([
        {
          file: this.source?.type === 'file' ? this.source.path : '(builder)',
          line: 1,
          column: 1,
          path: '',
          message: `this file builds a workflow (${agent.workflow.name}), not a single agent: use buildAgent()`,
          severity: 'error',
        },
      ]);
    return agent;
  }

  /** Any agent file: a prompt agent, an orchestration of sub-agents, or a `kind: workflow` file. */
  async buildAgent(options: BuildOptions = {}): Promise<ChatClientAgent | WorkflowAgent> {
    const planned = await this.plan(options.signal ? { signal: options.signal } : {});
    const warnings = byPosition(planned.diagnostics).filter((d) => d.severity === 'warning');
    if (warnings.length > 0 && !planned.diagnostics.some((d) => d.severity === 'error'))
      options.onWarnings?.(warnings);
    if (planned.composite) return this.own(planned.composite.build());
    if (!planned.plan) throw new DeclError(planned.diagnostics);
    return this.own(await (await assembly()).assembleAgent(planned, this.settings()));
  }

  /**
   * Closes the agents this builder built (their MCP servers, sub-agent workers) and the plugins
   * registered with `use()` that hold resources; also `await using builder = …`.
   */
  async close(): Promise<void> {
    const owned = [...this.owned].filter(
      (t): t is { close(): unknown } => typeof (t as { close?: unknown } | null)?.close === 'function',
    );
    this.owned.clear();
    // Each one is closed even when another fails; the first failure is thrown after.
    const settled = await Promise.allSettled(owned.map(async (t) => t.close()));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private own<T>(agent: T): T {
    this.owned.add(agent);
    return agent;
  }

  /**
   * One sub-agent of the file, alone, as its worker process builds it: the contexts it inherits,
   * its governance, its own model. Throws `DeclError` when the file is wrong or has no such sub-agent.
   */
  async buildSubAgent(name: string, options: { signal?: AbortSignal } = {}): Promise<ChatClientAgent> {
    const planned = await this.plan(options.signal ? { signal: options.signal } : {});
    if (!planned.plan) throw new DeclError(planned.diagnostics);
    const sub = planned.subAgents.find((s) => s.name === name);
    if (!sub) {
      throw new DeclError([
        {
          file: '(builder)',
          line: 1,
          column: 1,
          path: 'subAgents',
          message: `there is no sub-agent '${name}'`,
          severity: 'error',
        },
      ]);
    }
    return this.own(await (await assembly()).assembleSubAgent(sub, planned.plan.baseDir, this.settings()));
  }

  /** What assembling an agent needs of this builder. */
  private settings(): AssemblySettings {
    return { governance: this.governance };
  }
}
