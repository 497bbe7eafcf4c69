import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  ConfigError,
  getErrorMessage,
  type IChatClient,
  type IContextProvider,
  type ITool,
  isScopeTool,
  type NamedMcpServer,
  type PluginBuildContext,
  type ProtectedPath,
  type SecretStore,
} from '@raf/core';
import { WorkspaceContextProvider } from '@raf/framework';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Environment } from '../env/resolve-env.js';
import type { LoadedDefinition, PartialDefinition } from '../load/load-definition.js';
import { diagnosticAt } from '../load/source-document.js';
import { checkKindBlock } from '../registry/check-config.js';
import { installCommand, isMissingPackage } from '../registry/install-hint.js';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import { type ResolvedTool, resolveTools, type ToolFactory } from '../resolve/tool-resolver.js';
import type { AgentDefinition } from '../schema/agent-schema.js';
import { writtenPath } from '../schema/normalize.js';
import { type PlannedProvider, planContexts } from './plan-contexts.js';
import { type FallbackModel, planFallbacks } from './plan-fallback.js';
import { type ModelOverride, type NamedConnection, planModel } from './plan-model.js';
import { checkInjectedClashes, checkToolNameClashes, hostToolNames } from './tool-name-clashes.js';
import { checkToolPolicyNames } from './tool-policy-names.js';

/** What the builder was given besides the file. */
export interface PlanInputs {
  loaded: LoadedDefinition;
  registry: PluginRegistry;
  factories: ReadonlyMap<string, ToolFactory>;
  /** `withTool()` tools: given to the agent directly, never routed (the mixed mode). */
  codeTools: ReadonlyMap<string, ToolFactory>;
  codeProviders: readonly IContextProvider[];
  model: ModelOverride;
  connections: ReadonlyMap<string, NamedConnection>;
  variables: Readonly<Record<string, unknown>>;
  /** Where the providers' variables come from (`OPENAI_API_KEY`, …); default `process.env`. */
  env?: Environment;
  baseDir?: string;
  /** Everything that would warn is an error (`--strict`): missing folders, unknown config keys. */
  strict?: boolean;
  /** Unknown `config:` keys are errors (the load stage's unknown-key strictness). */
  strictKeys?: boolean;
  /** `validate()`/`explain()`: create nothing. */
  dryRun?: boolean;
  /** Paths every workspace protects: the agent definition file, the sessions folder. */
  protectedPaths?: readonly ProtectedPath[];
  /** The servers entries may name (`server: NAME`, `stdio://NAME`): `mcp.json`, `mcpServers:`, code. */
  mcpServers?: Readonly<Record<string, NamedMcpServer>>;
  /** The store's secret records, for plugins that keep a user's tokens (`withSecrets()`). */
  secrets?: SecretStore;
  signal?: AbortSignal;
  /**
   * Where a field of the planned definition is in the file (a sub-agent's fields are under
   * `subAgents[i]`, its inherited contexts under the parent's `contexts`); default: the same path.
   */
  pathOf?: (path: (string | number)[]) => (string | number)[];
}

export type { PlannedProvider } from './plan-contexts.js';

export interface PlannedTool {
  tool: ITool;
  source: 'static' | 'workspace' | 'code';
  workspace?: string;
  index?: number;
}

/** The effective agent: everything `build()` assembles and `explain()` prints. */
export interface AgentPlan {
  definition: AgentDefinition;
  /** The folder relative paths resolve against (the agent file's). */
  baseDir: string;
  client: IChatClient;
  provider: string;
  modelId: string;
  /** `model.fallback`: the models after this one, in order. */
  fallback?: FallbackModel[];
  instructions: string;
  tools: PlannedTool[];
  providers: PlannedProvider[];
  diagnostics: Diagnostic[];
}

/**
 * mustache, loaded only for templated agents (every import counts in a CLI's cold start). It is an
 * optional peer of `@raf/decl`: `undefined` when it is not installed.
 */
async function loadMustache(): Promise<typeof import('mustache')['default'] | undefined> {
  try {
    return (await import('mustache')).default;
  } catch (error) {
    if (isMissingPackage(error, 'mustache')) return undefined;
    throw error;
  }
}

async function renderInstructions(
  definition: AgentDefinition,
  variables: Readonly<Record<string, unknown>>,
  baseDir: string,
): Promise<string> {
  const sourcePath = definition.template?.sourcePath;
  const source = sourcePath
    ? await readFile(resolve(baseDir, sourcePath), 'utf8')
    : (definition.template?.content ?? definition.instructions);
  let rendered = source;
  if (definition.template?.format === 'mustache') {
    // planAgent stopped at its diagnostic when it is missing; a template is never sent unrendered.
    const mustache = await loadMustache();
    if (!mustache) throw new ConfigError('template format "mustache" needs mustache');
    rendered = mustache.render(source, variables, {}, { escape: (value: unknown) => String(value) });
  }
  return [rendered, definition.additionalInstructions].filter((part) => part?.trim()).join('\n\n');
}

/**
 * Composes the rules in order: name-expansion → partition of scope tools → workspace routing →
 * the other contexts in declaration order (history stays first, added by the agent) → the tool
 * loop (wrapped by `AgentBuilder` when any tool can exist). Problems become diagnostics.
 */
export async function planAgent(
  inputs: PlanInputs,
): Promise<{ plan?: AgentPlan; diagnostics: Diagnostic[] }> {
  const { loaded, registry } = inputs;
  const diagnostics = [...loaded.diagnostics];
  const { definition, document, normalized, origins } = loaded;
  // With errors in the file, the parts that passed the schema are still checked: one `validate`
  // reports every problem (and nothing is built).
  const checked = definition ?? loaded.partial;
  if (!checked || !document || !origins) return { diagnostics };
  const at = (
    path: (string | number)[],
    message: string,
    severity: Diagnostic['severity'] = 'error',
    key = false,
  ) =>
    diagnostics.push(
      diagnosticAt(
        document,
        writtenPath(normalized, origins, inputs.pathOf ? inputs.pathOf(path) : path),
        message,
        severity,
        { key },
      ),
    );
  if (!definition) checkHoles(normalized, checked, registry, at);
  // The agent's `sandbox:` defaults for `kind: code`, checked at their lines like a tool's config
  // (the plugin then gets them clean; with an error they are left out, the error already said).
  const sandboxDefaults = checkKindBlock(
    registry,
    'code',
    'sandbox',
    checked.sandbox,
    inputs.strictKeys ?? false,
    at,
  );
  const baseDir =
    inputs.baseDir ?? (document.file.startsWith('(') ? process.cwd() : dirname(resolve(document.file)));
  const loadedPaths: ProtectedPath[] = [];
  const context: PluginBuildContext = {
    baseDir,
    env: inputs.env ?? process.env,
    warn: (message) => at([], message, 'warning'),
    buildKey: {},
    ...(inputs.strict && { strict: true }),
    ...(inputs.dryRun && { dryRun: true }),
    ...(inputs.signal && { signal: inputs.signal }),
    ...(sandboxDefaults && { agentDefaults: { sandbox: sandboxDefaults } }),
    ...(inputs.protectedPaths &&
      inputs.protectedPaths.length > 0 && { protectedPaths: inputs.protectedPaths }),
    resolveModel: async (model) => registry.modelProvider(model.kind)?.(model, context),
    agentToolNames: () => agentToolNames,
    // Shared by every entry's copy of the context: collected here, protected by each workspace.
    protect: (paths) => {
      for (const p of paths) loadedPaths.push({ ...p, path: resolve(baseDir, p.path) });
    },
    ...(inputs.mcpServers && { mcpServers: inputs.mcpServers }),
    ...(inputs.secrets && { secrets: inputs.secrets }),
  };
  let agentToolNames: ReadonlySet<string> = new Set();

  const primary = checked.model
    ? await planModel(checked.model, inputs.model, inputs.connections, registry, context, at)
    : undefined;
  const chain =
    checked.model && primary
      ? await planFallbacks(primary.client, checked.model, inputs.connections, registry, context, at)
      : undefined;
  const model = primary && { ...primary, client: chain?.client, fallback: chain?.fallback ?? [] };
  const client = model?.client;
  if (client) context.chatClient = client;

  const resolved = await resolveTools(
    checked.tools,
    registry,
    inputs.factories,
    context,
    inputs.strictKeys ?? false,
    (index, path, message, severity, key) => at(['tools', index, ...path], message, severity, key),
  );
  const providers = await planContexts(checked, registry, context, inputs.strictKeys ?? false, at);

  const tools = routeTools(resolved, providers, at);
  for (const [name, factory] of inputs.codeTools) {
    if (checked.tools.some((d) => d?.name === name)) continue; // YAML declared it: resolved above
    try {
      tools.push({ tool: await factory({}, context), source: 'code' });
    } catch (error) {
      diagnostics.push({
        file: document.file,
        line: 1,
        column: 1,
        path: '',
        message: `withTool('${name}'): ${getErrorMessage(error)}`,
        severity: 'error',
      });
    }
  }
  for (const provider of inputs.codeProviders) providers.push({ provider });
  checkToolNameClashes(
    tools,
    providers,
    (index) => (index === undefined ? undefined : checked.contexts?.[index]?.name),
    (path, message) => at(path, message),
  );
  checkInjectedClashes(
    tools,
    providers,
    (index) => (index === undefined ? undefined : checked.contexts?.[index]?.name),
    (path, message, severity) => at(path, message, severity),
  );
  agentToolNames = hostToolNames(tools, providers);
  checkToolPolicyNames(
    checked.kind === 'prompt' ? checked.toolPolicy : undefined,
    tools,
    providers,
    registry,
    (path, message) => at(path, message),
  );
  // What the definition executes or loads, declared by the entries as they were built (and the
  // instructions' template file): no workspace lets the model rewrite it (SPEC §9).
  const templatePath = checked.template?.sourcePath;
  if (templatePath)
    loadedPaths.push({
      path: resolve(baseDir, templatePath),
      reason: 'instructions template',
      readable: true,
    });
  protectLoaded(providers, loadedPaths);
  // Checked with the rest of the file (`validate` names it), never rendered as plain text.
  if (checked.template?.format === 'mustache' && !(await loadMustache()))
    at(
      ['template', 'format'],
      `template format "mustache" needs mustache (${installCommand('mustache', baseDir)})`,
    );

  if (!definition || !client || !model || diagnostics.some((d) => d.severity === 'error'))
    return { diagnostics };
  let instructions: string;
  try {
    instructions = await renderInstructions(definition, inputs.variables, baseDir);
  } catch (error) {
    at(['template', 'sourcePath'], `cannot read the template: ${getErrorMessage(error)}`);
    return { diagnostics };
  }
  const { provider, modelId, fallback } = model;
  return {
    plan: {
      definition,
      baseDir,
      client,
      provider,
      modelId,
      ...(fallback.length > 0 && { fallback }),
      instructions,
      tools,
      providers,
      diagnostics,
    },
    diagnostics,
  };
}

/**
 * Every workspace of the agent protects what its entries execute or load, and so does every other
 * provider that writes files and says so with a `protect(paths)` method (a writable wiki, whose
 * folder may hold the skills or the template).
 */
export function protectLoaded(providers: readonly PlannedProvider[], paths: readonly ProtectedPath[]): void {
  if (paths.length === 0) return;
  for (const { provider } of providers) {
    if (provider instanceof WorkspaceContextProvider) provider.protect(paths);
    else if (typeof (provider as { protect?: unknown }).protect === 'function')
      (provider as unknown as { protect(paths: readonly ProtectedPath[]): unknown }).protect(paths);
  }
}

/** Rule 1: each scope tool goes to the first workspace; everything else stays on the agent. */
function routeTools(
  resolved: ResolvedTool[],
  providers: PlannedProvider[],
  at: (path: (string | number)[], message: string, severity?: Diagnostic['severity']) => void,
): PlannedTool[] {
  const workspaces = providers.filter(
    (p): p is PlannedProvider & { provider: WorkspaceContextProvider } =>
      p.provider instanceof WorkspaceContextProvider,
  );
  const first = workspaces[0]?.provider;
  const planned: PlannedTool[] = [];
  for (const { tool, index } of resolved) {
    if (first && isScopeTool(tool)) {
      first.addTool(tool);
      planned.push({ tool, source: 'workspace', workspace: first.scope.name, index });
    } else {
      planned.push({ tool, source: 'static', index });
    }
  }
  if (workspaces.length > 1 && planned.some((t) => t.source === 'workspace')) {
    const others = workspaces
      .slice(1)
      .map((w) => w.provider.scope.name)
      .join(', ');
    at(
      ['contexts', workspaces[1]?.index ?? 0],
      `scope tools go to the first workspace '${first?.scope.name}'; ${others} get${workspaces.length > 2 ? '' : 's'} none`,
      'warning',
    );
  }
  return planned;
}

/**
 * Entries that failed the schema are holes in the partial definition; their kinds are still
 * checked, so one `validate` names the packages to install along with the other problems.
 */
function checkHoles(
  normalized: unknown,
  partial: PartialDefinition,
  registry: PluginRegistry,
  report: (path: (string | number)[], message: string) => void,
): void {
  const root = (normalized ?? {}) as { tools?: unknown; contexts?: unknown; model?: { provider?: unknown } };
  const entries = (list: unknown) =>
    (Array.isArray(list) ? list : []).map((e, i) => [i, (e as { kind?: unknown } | null)?.kind] as const);
  for (const [i, kind] of entries(root.tools)) {
    if (partial.tools[i] !== undefined || typeof kind !== 'string') continue;
    if (kind !== 'function' && kind !== 'custom' && !registry.toolKind(kind))
      report(['tools', i, 'kind'], registry.missing('tool kind', kind));
  }
  for (const [i, kind] of entries(root.contexts)) {
    if (partial.contexts[i] !== undefined || typeof kind !== 'string') continue;
    if (kind !== 'history' && !registry.contextKind(kind))
      report(['contexts', i, 'kind'], registry.missing('context kind', kind));
  }
  const provider = root.model?.provider;
  if (partial.model === undefined && typeof provider === 'string' && !registry.modelProvider(provider))
    report(['model', 'provider'], registry.missing('model provider', provider));
}
