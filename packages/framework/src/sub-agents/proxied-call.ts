import type { ITool, JSONValue, ToolResult } from '@raf/core';
import { toolFailure } from '@raf/core';
import { planApprovals, prepareCalls } from '../pipeline/prepare-calls.js';
import { executeCalls } from '../pipeline/tool-executor.js';
import type { SubAgentSpec } from './sub-agent.js';
import { type ParentOfSubAgents, projectSubAgent } from './sub-agent-projection.js';

/** A proxied call as a sub-agent running elsewhere sends it: the model's arguments, unchanged. */
export interface ProxiedCall {
  name: string;
  callId: string;
  arguments: JSONValue;
}

/** The parent's answer: the result, or the approval the call needs before it may run. */
export type ProxiedAnswer = { result: ToolResult } | { approval: { description: string; target?: string } };

/**
 * Runs one proxied call with the parent's own instance of the tool: its argument checks, its
 * approval gate (decided here, once) and its path guard, exactly as the parent's own calls.
 * `approvedTarget` is set when the human already approved this very call (the target they were
 * shown, `null` for none): the gate is not asked again. `beforeRun` is called once the call may
 * run (the gate let it through, or it was approved), just before it runs; a result it gives is
 * the answer instead and the call does not run. A durable coordinator marks the call started
 * there: a call that only asked was never started.
 */
export async function answerProxiedCall(
  tool: ITool,
  call: ProxiedCall,
  signal: AbortSignal,
  approvedTarget?: string | null,
  beforeRun?: () => Promise<ToolResult | undefined>,
): Promise<ProxiedAnswer> {
  const [prepared] = prepareCalls(
    [{ id: call.callId, name: call.name, arguments: JSON.stringify(call.arguments) }],
    new Map([[tool.name, tool]]),
  );
  if (!prepared) return { result: toolFailure('no result') };
  if (approvedTarget !== undefined && !prepared.preset) {
    prepared.approved = true;
    if (approvedTarget !== null) prepared.approvedTarget = approvedTarget;
  } else if (!prepared.preset) {
    const [gate] = await planApprovals([prepared], { sessionId: undefined, context: undefined });
    if (gate) {
      const { description } = gate.update;
      return { approval: gate.target === undefined ? { description } : { description, target: gate.target } };
    }
  }
  // A call its argument check refused is answered without running: nothing to mark.
  if (!prepared.preset && beforeRun) {
    const instead = await beforeRun();
    if (instead) return { result: instead };
  }
  const [result] = await executeCalls([prepared], signal);
  return { result: result ?? toolFailure('no result') };
}

/** Where each of a sub-agent's tools runs under its parent, and the parent's instances of the proxied ones. */
export interface SubAgentRoutes {
  routes: Record<string, 'worker-local' | 'main-process-proxy' | 'disabled'>;
  /** The tools that run in the parent (`main-process-proxy`), by name. */
  proxied: Map<string, ITool>;
}

/** The routes of sub-agent `spec` under `parent` (its projection), for a runner of its own. */
export async function subAgentRoutes(
  spec: SubAgentSpec,
  parent: ParentOfSubAgents,
  signal?: AbortSignal,
): Promise<SubAgentRoutes> {
  const projection = await projectSubAgent(spec, parent, signal);
  const routes: SubAgentRoutes['routes'] = {};
  const proxied = new Map<string, ITool>();
  for (const t of projection.tools) {
    if (!t.tool) continue;
    routes[t.name] = t.runtime.route;
    if (t.runtime.route === 'main-process-proxy') proxied.set(t.name, t.tool);
  }
  return { routes, proxied };
}
