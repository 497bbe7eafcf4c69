import { dirname } from 'node:path';
import type { RafPlugin } from '@raf/core';
import { type AgentToolPolicy, inheritToolPolicy, workerModuleFolder } from '@raf/framework';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { diagnosticAt } from '../load/source-document.js';
import {
  type A2ASubAgentDefinition,
  type AgentDefinition,
  type ContextDecl,
  type SubAgentDefinition,
  subAgentSchema,
} from '../schema/agent-schema.js';
import { writtenPath } from '../schema/normalize.js';
import { type AgentPlan, type PlanInputs, planAgent } from './agent-plan.js';
import { type Orchestration, orchestrationOf } from './orchestration.js';
import type { SubAgentPlanSettings } from './sub-agent-data.js';
import { checkWorkspaces } from './sub-agent-workspaces.js';
import { workerFactoryModule } from './worker-factory-ref.js';

/** A sub-agent as planned: its own plan (with the contexts it inherits) and where it runs. */
export interface PlannedSubAgent {
  index: number;
  name: string;
  definition: SubAgentDefinition;
  plan: AgentPlan;
  /** Its `toolPolicy` under the parent's: never looser. */
  toolPolicy?: AgentToolPolicy;
  runtime: 'worker' | 'inline';
  /** What it was planned under: its worker gets these with its plan, as data. */
  settings: SubAgentPlanSettings;
}

/** The root plan and, for a coordinator, its sub-agents. */
export interface PlanWithSubAgents {
  plan?: AgentPlan;
  subAgents: PlannedSubAgent[];
  orchestration?: Orchestration;
  diagnostics: Diagnostic[];
}

const identity = (decl: ContextDecl) => `${decl.kind}\u0000${decl.name ?? ''}`;

/**
 * Plans the agent and, when it has `subAgents`, each of them (SPEC §7.1): a full `kind: prompt`
 * definition that inherits the parent's contexts (de-duplicated by kind and name, its own entry
 * winning), whose workspaces must lie inside a parent root under a policy at least as strict.
 * Every problem is reported at its place in the file.
 */
export async function planWithSubAgents(given: PlanInputs): Promise<PlanWithSubAgents> {
  const inputs = withWorkerModules(given);
  const root = await planAgent(inputs);
  const definition = inputs.loaded.definition;
  const subs = definition?.subAgents ?? [];
  if (!root.plan || !definition || subs.length === 0) return { ...root, subAgents: [] };
  const { document, normalized, origins } = inputs.loaded;
  if (!document || !origins) return { ...root, subAgents: [] };
  const diagnostics = root.diagnostics;
  const at = (path: (string | number)[], message: string, severity: Diagnostic['severity'] = 'error') =>
    diagnostics.push(diagnosticAt(document, writtenPath(normalized, origins, path), message, severity));

  const { orchestration, problem } = orchestrationOf(definition.metadata);
  // Only magentic reaches here; the other modes are graphs planned by plan-workflow.ts.
  if (problem) at(problem.path, problem.message);
  const names = new Map<string, number>();
  const planned: PlannedSubAgent[] = [];
  for (const [index, sub] of subs.entries()) {
    const earlier = names.get(sub.name);
    if (earlier !== undefined) {
      at(
        ['subAgents', index, 'name'],
        `subAgents[${earlier}] is also named '${sub.name}'; names must be unique`,
      );
      continue;
    }
    names.set(sub.name, index);
    const one =
      sub.kind === 'a2a'
        ? await planRemoteSubAgent(inputs, sub, index)
        : await planSubAgent(inputs, definition, root.plan, sub, index, at);
    diagnostics.push(...one.diagnostics.filter((d) => !diagnostics.includes(d)));
    if (one.planned) planned.push(one.planned);
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics, subAgents: [] };
  return { plan: root.plan, subAgents: planned, orchestration, diagnostics };
}

/**
 * With sub-agents in workers, the code each delegation starts (the worker's entry and the module
 * that rebuilds the sub-agent) is protected in every workspace, the sub-agents' too.
 */
function withWorkerModules(inputs: PlanInputs): PlanInputs {
  const subs = inputs.loaded.definition?.subAgents ?? inputs.loaded.partial?.subAgents ?? [];
  if (!subs.some((sub) => sub.kind !== 'a2a' && sub.runtime !== 'inline')) return inputs;
  const folders = [...new Set([workerModuleFolder(), dirname(workerFactoryModule())])];
  return {
    ...inputs,
    protectedPaths: [
      ...(inputs.protectedPaths ?? []),
      ...folders.map((path) => ({ path, reason: 'sub-agent worker modules', readable: true })),
    ],
  };
}

/**
 * A remote A2A sub-agent (`kind: a2a`), planned as an inline sub-agent whose model is the remote
 * agent (the `a2a` model provider of `@raf/a2a`): it has no tools and inherits no context of the
 * parent (nothing of this machine reaches it but the task), and the CLI's `--model` override,
 * meant for models, does not replace it.
 */
async function planRemoteSubAgent(
  inputs: PlanInputs,
  sub: A2ASubAgentDefinition,
  index: number,
): Promise<{ planned?: PlannedSubAgent; diagnostics: Diagnostic[] }> {
  const config = {
    ...(sub.cardPath && { cardPath: sub.cardPath }),
    ...(sub.allowPrivate && { allowPrivate: sub.allowPrivate }),
    ...(sub.maxBytes !== undefined && { maxBytes: sub.maxBytes }),
  };
  const definition: SubAgentDefinition = subAgentSchema.parse({
    kind: 'prompt',
    name: sub.name,
    ...(sub.description !== undefined && { description: sub.description }),
    model: {
      id: sub.name,
      provider: 'a2a',
      connection: { endpoint: sub.url, ...(sub.headers && { headers: sub.headers }) },
      config,
    },
    maxToolRounds: 1,
    ...(sub.timeoutSecs !== undefined && { timeoutSecs: sub.timeoutSecs }),
  });
  const { runtime: _runtime, timeoutSecs: _timeout, subAgents: _nested, ...rest } = definition;
  const pathOf = (path: (string | number)[]) => [
    'subAgents',
    index,
    ...(path[0] === 'model' ? ['url'] : path),
  ];
  const { plan, diagnostics } = await planAgent({
    ...inputs,
    model: {},
    loaded: { ...inputs.loaded, definition: { ...rest, contexts: [] }, diagnostics: [] },
    codeTools: new Map(),
    codeProviders: [],
    pathOf,
  });
  if (!plan) return { diagnostics };
  // Always inline (a remote agent needs no worker); its settings are those of the plan, for the record.
  const a2a = inputs.registry.pluginOf('model provider', 'a2a');
  const settings = planSettings(inputs, a2a ? [a2a] : []);
  return { planned: { index, name: sub.name, definition, plan, runtime: 'inline', settings }, diagnostics };
}

async function planSubAgent(
  inputs: PlanInputs,
  parent: AgentDefinition,
  parentPlan: AgentPlan,
  sub: SubAgentDefinition,
  index: number,
  at: (path: (string | number)[], message: string, severity?: Diagnostic['severity']) => void,
): Promise<{ planned?: PlannedSubAgent; diagnostics: Diagnostic[] }> {
  // Inherited contexts first, in the parent's order; the child's own entries replace theirs.
  const own = new Map(sub.contexts.map((decl, i) => [identity(decl), i]));
  const contexts: { decl: ContextDecl; path: (string | number)[]; inherited: boolean }[] = [
    ...parent.contexts
      .map((decl, i) => ({ decl, path: ['contexts', i], inherited: true }))
      .filter(({ decl }) => !own.has(identity(decl))),
    ...sub.contexts.map((decl, i) => ({ decl, path: ['subAgents', index, 'contexts', i], inherited: false })),
  ];
  const { runtime, timeoutSecs: _timeout, subAgents: _nested, ...rest } = sub;
  const definition: AgentDefinition = { ...rest, contexts: contexts.map((c) => c.decl) };
  const pathOf = (path: (string | number)[]) =>
    path[0] === 'contexts' && typeof path[1] === 'number'
      ? [...(contexts[path[1]]?.path ?? ['subAgents', index, 'contexts']), ...path.slice(2)]
      : ['subAgents', index, ...path];
  const { plan, diagnostics } = await planAgent({
    ...inputs,
    loaded: { ...inputs.loaded, definition, diagnostics: [] },
    codeTools: new Map(),
    codeProviders: [],
    pathOf,
  });
  if (!plan) return { diagnostics };
  checkWorkspaces(plan, parentPlan, contexts, pathOf, at);
  let mode: 'worker' | 'inline' = runtime ?? 'worker';
  const fromCode = sub.tools.findIndex((t) => t.kind === 'function' || t.kind === 'custom');
  if (mode === 'worker' && fromCode >= 0) {
    at(
      ['subAgents', index, 'tools', fromCode, 'kind'],
      `sub-agent '${sub.name}' runs inline: its ${sub.tools[fromCode]?.kind} tools come from code, which a worker process cannot rebuild (say runtime: inline to keep this quiet)`,
      'warning',
    );
    mode = 'inline';
  }
  const plugins = pluginsUsed(definition, inputs.registry);
  const unportable = mode === 'worker' ? plugins.find((p) => p.options === false)?.packageName : undefined;
  if (unportable) {
    at(
      ['subAgents', index, 'runtime'],
      `sub-agent '${sub.name}' runs inline: ${unportable} was registered with options that are code, which a worker process cannot get (say runtime: inline to keep this quiet)`,
      'warning',
    );
    mode = 'inline';
  }
  const toolPolicy = inheritToolPolicy(parent.toolPolicy, sub.toolPolicy);
  return {
    planned: {
      index,
      name: sub.name,
      definition: sub,
      plan,
      ...(toolPolicy && { toolPolicy }),
      runtime: mode,
      settings: planSettings(inputs, plugins),
    },
    diagnostics,
  };
}

/** What a sub-agent was planned under (its worker gets these with its plan, as data). */
function planSettings(inputs: PlanInputs, plugins: readonly RafPlugin[]): SubAgentPlanSettings {
  return {
    model: inputs.model,
    variables: inputs.variables,
    ...(inputs.env && { env: inputs.env }),
    strict: { unknownKeys: inputs.strictKeys ?? false, missingFolders: inputs.strict ?? false },
    protectedPaths: inputs.protectedPaths ?? [],
    ...(inputs.mcpServers && { mcpServers: inputs.mcpServers }),
    plugins,
  };
}

/** The extension plugins the definition's kinds come from: all a worker registers to make it. */
function pluginsUsed(definition: AgentDefinition, registry: PlanInputs['registry']): RafPlugin[] {
  const used = [
    ...definition.tools.map((t) => registry.pluginOf('tool kind', t.kind)),
    ...definition.contexts.map((c) => registry.pluginOf('context kind', c.kind)),
    ...[definition.model, ...(definition.model.fallback ?? [])].map((m) =>
      m.provider ? registry.pluginOf('model provider', m.provider) : undefined,
    ),
  ];
  return [...new Set(used)].filter((p): p is RafPlugin => p !== undefined && p.packageName !== '@raf/decl');
}
