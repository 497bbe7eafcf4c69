import { getErrorMessage, type IContextProvider, type ITool, type JSONValue } from '@raf/core';
import {
  ApprovalRequiredTool,
  manifestOf,
  type ProtectedPathRule,
  WorkspaceContextProvider,
} from '@raf/framework';
import type { AgentPlan } from '../builder/agent-plan.js';
import { formatDiagnostic } from '../diagnostics/diagnostic.js';

export interface ExplainedTool {
  name: string;
  kind: string;
  source: 'static' | 'workspace' | 'injected';
  /** The workspace a routed tool belongs to, or the context that injects it. */
  workspace: string | null;
  context?: string;
  /** The MCP server a tool comes from (`@raf/mcp` tools carry it). */
  server?: string;
  gated: boolean;
  approval: 'never' | 'outside-scope' | 'always' | 'unless-allowed';
  executionMode: 'parallel' | 'sequential';
  route: 'worker-local' | 'main-process-proxy' | 'disabled';
}

/** `raf inspect --json` (SPEC §11.1): the agent as it will run. */
export interface AgentExplanation {
  name: string;
  model: { provider: string; id: string };
  toolLoop: boolean;
  maxToolRounds: number;
  instructions: string;
  /**
   * A workspace entry also lists its protected paths and what its policy does with them;
   * `details` is what a provider's `describe()` tells (an index's files, chunks, last build).
   */
  contexts: {
    kind: string;
    name: string;
    order: number;
    protectedPaths?: ProtectedPathRule[];
    details?: Record<string, JSONValue>;
  }[];
  tools: ExplainedTool[];
  warnings: string[];
  /** A workflow file or an agent with sub-agents: the mode and the compiled graph. */
  workflow?: ExplainedWorkflow;
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

const ROUTES = {
  local: 'worker-local',
  'main-process-proxy': 'main-process-proxy',
  disabled: 'disabled',
} as const;

async function describe(
  tool: ITool,
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
  return {
    name: tool.name,
    kind: tool.kind ?? 'function',
    source,
    workspace: source === 'workspace' ? owner : null,
    ...(source === 'injected' && owner !== null && { context: owner }),
    ...(typeof server === 'string' && { server }),
    gated,
    approval,
    executionMode: manifest.executionMode,
    route: ROUTES[manifest.workerRoutingHint],
  };
}

/** The provider's tools as known before a run (workspace: routed; skills: injected). */
function injectedTools(provider: unknown): readonly ITool[] {
  const tools = (provider as { tools?: unknown }).tools;
  return Array.isArray(tools) ? (tools as ITool[]) : [];
}

export async function explainPlan(plan: AgentPlan): Promise<AgentExplanation> {
  const tools: ExplainedTool[] = [];
  for (const { tool, source } of plan.tools)
    if (source !== 'workspace') tools.push(await describe(tool, 'static', null));
  const warnings = plan.diagnostics.filter((d) => d.severity === 'warning').map(formatDiagnostic);
  for (const { provider } of plan.providers) {
    if (provider instanceof WorkspaceContextProvider) {
      for (const tool of provider.tools)
        tools.push(await describe(tool, 'workspace', provider.scope.name, provider.scope.policy));
      const instructions = await provider.instructions();
      if (/NOT confined/.test(instructions)) {
        warnings.push(
          `workspace '${provider.scope.name}': run_command is not confined on this machine (bubblewrap is not installed); only its working_dir is checked`,
        );
      }
      continue;
    }
    for (const tool of injectedTools(provider)) tools.push(await describe(tool, 'injected', provider.name));
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
    { kind: 'history', name: 'InMemoryHistoryProvider' },
    ...(await Promise.all(
      plan.providers.map(async ({ provider }) => ({
        kind: provider.kind,
        name: provider.name,
        ...(provider instanceof WorkspaceContextProvider && { protectedPaths: provider.protectedPaths }),
        ...(await described(provider)),
      })),
    )),
  ].map((c, order) => ({ ...c, order }));
  const toolLoop =
    plan.tools.length > 0 || plan.providers.some(({ provider }) => provider.injectsTools !== false);
  return {
    name: plan.definition.name,
    model: { provider: plan.provider, id: plan.modelId },
    toolLoop,
    maxToolRounds: plan.definition.maxToolRounds,
    instructions: plan.instructions,
    contexts,
    tools,
    warnings,
  };
}
