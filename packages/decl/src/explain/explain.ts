import { getErrorMessage, type IContextProvider, type ITool, type JSONValue } from '@raf/core';
import {
  ApprovalRequiredTool,
  type ChatClientAgent,
  manifestOf,
  type ProtectedPathRule,
  type RuntimeDiagnostic,
  type RuntimeRoute,
  runtimeDiagnostic,
  SubAgentsProvider,
  WorkspaceContextProvider,
} from '@raf/framework';
import type { AgentPlan } from '../builder/agent-plan.js';
import { formatDiagnostic } from '../diagnostics/diagnostic.js';
import type { AgentDefinition, ToolPolicyDecl } from '../schema/agent-schema.js';

export interface ExplainedTool {
  name: string;
  kind: string;
  source: 'static' | 'workspace' | 'injected';
  /** The workspace a routed tool belongs to, or the context that injects it. */
  workspace: string | null;
  context?: string;
  /** The MCP server a tool comes from (`@raf/mcp` tools carry it). */
  server?: string;
  /** The server's own name for an MCP tool the agent offers under another (prefixed or renamed). */
  remoteName?: string;
  gated: boolean;
  approval: 'never' | 'outside-scope' | 'always' | 'unless-allowed';
  executionMode: 'parallel' | 'sequential';
  route: 'worker-local' | 'main-process-proxy' | 'disabled';
}

/** `raf inspect --json` (SPEC §11.1): the agent as it will run. */
export interface AgentExplanation {
  name: string;
  /** `fallback`: `model.fallback`, the models tried after this one, in order. */
  model: { provider: string; id: string; fallback?: { provider: string; id: string }[] };
  toolLoop: boolean;
  maxToolRounds: number;
  instructions: string;
  /**
   * A workspace entry also lists its protected paths and what its policy does with them;
   * `details` is what a provider's `describe()` tells (an index's files, chunks, last build).
   */
  contexts: {
    kind: string;
    /** The name the file gives the context (`contexts[].name`), else its provider's name. */
    name: string;
    /** The provider's own name (`WorkspaceContextProvider`, …). */
    provider: string;
    order: number;
    protectedPaths?: ProtectedPathRule[];
    details?: Record<string, JSONValue>;
  }[];
  tools: ExplainedTool[];
  /**
   * The agent's overrides of tool governance as the file writes them (`toolPolicy`, names as
   * spelled there), or null; `runtime` shows what they do.
   */
  toolPolicy: ToolPolicyDecl | null;
  /**
   * How the agent runs its sub-agents, when it has any (SPEC §10: `inspect` names the mode), with
   * each one's `toolPolicy` as written (it applies under the parent's, never looser).
   */
  orchestration: {
    mode: string;
    maxIterations: number;
    subAgents: { name: string; runtime: 'worker' | 'inline'; toolPolicy: ToolPolicyDecl | null }[];
  } | null;
  /** `runtimeDiagnostic()` of the agent (SPEC §7.1): every `tools[].route` is its `runtime.route`. */
  runtime: RuntimeDiagnostic;
  warnings: string[];
  /** A workflow file or an agent with sub-agents: the mode and the compiled graph. */
  workflow?: ExplainedWorkflow;
  /** The servers of the `mcpServers` map entries can name, with where each was declared. */
  mcpServers?: { name: string; source: string; transport: 'stdio' | 'http' }[];
}

/** The shape `raf inspect` draws: nodes and edges of the compiled graph. */
export interface ExplainedWorkflow {
  kind: 'workflow' | 'orchestration';
  mode: string;
  summary: string;
  subAgents: string[];
  graph?: {
    start: string;
    nodes: { id: string; kind: string; label?: string; output: boolean }[];
    edges: { from: string; to: string; kind: string; label?: string; loopback?: number }[];
    warnings: string[];
  };
}

async function describe(
  tool: ITool,
  route: (name: string) => RuntimeRoute,
  source: ExplainedTool['source'],
  owner: string | null,
  policy?: string,
): Promise<ExplainedTool> {
  const gated = tool.requiresApproval ? await tool.requiresApproval() : false;
  const manifest = manifestOf(tool);
  let approval: ExplainedTool['approval'] = 'never';
  if (gated) {
    if (policy === 'ApproveOutside')
      approval = tool.name === 'run_command' ? 'unless-allowed' : 'outside-scope';
    else approval = tool instanceof ApprovalRequiredTool || !policy ? 'always' : 'outside-scope';
  }
  const server = (tool as { server?: unknown }).server;
  const remote = (tool as { remoteName?: unknown }).remoteName;
  return {
    name: tool.name,
    kind: tool.kind ?? 'function',
    source,
    workspace: source === 'workspace' ? owner : null,
    ...(source === 'injected' && owner !== null && { context: owner }),
    ...(typeof server === 'string' && { server }),
    ...(typeof remote === 'string' && remote !== tool.name && { remoteName: remote }),
    gated,
    approval,
    executionMode: manifest.executionMode,
    route: route(tool.name),
  };
}

/** A sub-agent's `toolPolicy` as its entry in the file writes it. */
export function writtenSubAgentPolicy(definition: AgentDefinition, name: string): ToolPolicyDecl | null {
  const sub = definition.subAgents?.find((s) => s.name === name);
  return (sub?.kind === 'prompt' ? sub.toolPolicy : undefined) ?? null;
}

/** The provider's tools as known before a run (workspace: routed; skills: injected). */
function injectedTools(provider: unknown): readonly ITool[] {
  const tools = (provider as { tools?: unknown }).tools;
  return Array.isArray(tools) ? (tools as ITool[]) : [];
}

/**
 * The effective agent (SPEC §11.1) from its plan and the agent built from it: each tool with where
 * it went, its gate and its route, which comes from the agent's `runtimeDiagnostic()` (nothing
 * here derives one).
 */
export async function explainPlan(plan: AgentPlan, agent: ChatClientAgent): Promise<AgentExplanation> {
  const runtime = await runtimeDiagnostic(agent);
  const routes = new Map(runtime.tools.map((t) => [t.name, t.runtime.route]));
  const route = (name: string): RuntimeRoute => routes.get(name) ?? 'disabled';
  const tools: ExplainedTool[] = [];
  for (const { tool, source } of plan.tools)
    if (source !== 'workspace') tools.push(await describe(tool, route, 'static', null));
  const warnings = plan.diagnostics.filter((d) => d.severity === 'warning').map(formatDiagnostic);
  // The agent's providers: the plan's, and the sub-agents' coordinator when it has sub-agents.
  const providers = agent.contextProviders.slice(1);
  // The name the file gives a context (what `tools[].workspace` shows), else the provider's own;
  // `tools[].context` of an injected tool names it the same way.
  const written = new Map<IContextProvider, string>();
  for (const { provider, index } of plan.providers) {
    const name = index === undefined ? undefined : plan.definition.contexts[index]?.name;
    if (name) written.set(provider, name);
  }
  for (const provider of providers) {
    if (provider instanceof WorkspaceContextProvider) {
      for (const tool of provider.tools)
        tools.push(await describe(tool, route, 'workspace', provider.scope.name, provider.scope.policy));
      const instructions = await provider.instructions();
      if (/NOT confined/.test(instructions)) {
        warnings.push(
          `workspace '${provider.scope.name}': run_command is not confined on this machine (bubblewrap is not installed); only its working_dir is checked`,
        );
      }
      continue;
    }
    for (const tool of injectedTools(provider))
      tools.push(await describe(tool, route, 'injected', written.get(provider) ?? provider.name));
  }
  const described = async (provider: IContextProvider) => {
    if (!provider.describe) return {};
    try {
      return { details: await provider.describe() };
    } catch (error) {
      warnings.push(`${provider.kind} '${provider.name}': ${getErrorMessage(error)}`);
      return {};
    }
  };
  const contexts = [
    { kind: 'history', name: 'InMemoryHistoryProvider', provider: 'InMemoryHistoryProvider' },
    ...(await Promise.all(
      providers.map(async (provider) => ({
        kind: provider.kind,
        name: written.get(provider) ?? provider.name,
        provider: provider.name,
        ...(provider instanceof WorkspaceContextProvider && { protectedPaths: provider.protectedPaths }),
        ...(await described(provider)),
      })),
    )),
  ].map((c, order) => ({ ...c, order }));
  // Whether the agent may run tools: its own, or a provider that may inject them (`raf inspect`'s "tool loop").
  const toolLoop = agent.tools.length > 0 || providers.some((p) => p.injectsTools !== false);
  const coordinator = providers.find((p): p is SubAgentsProvider => p instanceof SubAgentsProvider);
  return {
    name: plan.definition.name,
    model: { provider: plan.provider, id: plan.modelId, ...(plan.fallback && { fallback: plan.fallback }) },
    toolLoop,
    maxToolRounds: plan.definition.maxToolRounds,
    instructions: plan.instructions,
    contexts,
    tools,
    toolPolicy: plan.definition.toolPolicy ?? null,
    orchestration: coordinator
      ? {
          mode: 'magentic',
          maxIterations: coordinator.maxIterations,
          subAgents: coordinator.subAgents.map((s) => ({
            name: s.name,
            runtime: s.runtime === 'inline' || !s.worker ? ('inline' as const) : ('worker' as const),
            toolPolicy: writtenSubAgentPolicy(plan.definition, s.name),
          })),
        }
      : null,
    runtime,
    warnings,
  };
}
