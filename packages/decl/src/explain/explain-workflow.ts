import type { ChatClientAgent } from '@raf/framework';
import type { WorkflowGraph } from '@raf/workflow';
import type { AgentPlan } from '../builder/agent-plan.js';
import type { CompositePlan } from '../builder/plan-workflow.js';
import { type AgentExplanation, type ExplainedWorkflow, explainPlan } from './explain.js';

/** Nodes in the order a run meets them (breadth first from the start), then the unreachable ones. */
function ordered(graph: WorkflowGraph): string[] {
  const seen = new Set([graph.startNodeId]);
  const queue = [graph.startNodeId];
  for (let i = 0; i < queue.length; i++)
    for (const edge of graph.outgoing.get(queue[i]!) ?? [])
      for (const target of edge.targets)
        if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
  return [...queue, ...[...graph.nodes.keys()].filter((id) => !seen.has(id))];
}

function graphOf(graph: WorkflowGraph): NonNullable<ExplainedWorkflow['graph']> {
  return {
    start: graph.startNodeId,
    nodes: ordered(graph)
      .map((id) => graph.nodes.get(id)!)
      .map((n) => ({
        id: n.id,
        kind: n.executor.kind,
        ...(n.executor.label !== undefined && { label: n.executor.label }),
        output: n.output,
      })),
    edges: graph.edges.flatMap((e) => {
      const label = e.label;
      if (e.kind === 'switch')
        return (e.cases ?? []).map((c) => ({
          from: e.sources[0]!,
          to: c.target,
          kind: 'switch',
          ...(c.label && { label: c.label }),
        }));
      return e.sources.flatMap((from) =>
        e.targets.map((to) => ({
          from,
          to,
          kind: e.condition ? 'conditional' : e.kind,
          ...(label && { label }),
          ...(e.loopback && { loopback: e.loopback.maxIterations }),
        })),
      );
    }),
    warnings: [...graph.warnings],
  };
}

/** The explanation of a workflow file or an orchestrated agent: the root's plan (if any) and the graph. */
export async function explainComposite(
  composite: CompositePlan,
  plan: AgentPlan | undefined,
  agentOf: (plan: AgentPlan) => ChatClientAgent,
): Promise<AgentExplanation> {
  const workflow: ExplainedWorkflow = {
    kind: composite.kind,
    mode: composite.mode,
    summary: composite.summary,
    subAgents: composite.subAgents,
    ...(composite.graph && { graph: graphOf(composite.graph) }),
  };
  if (plan) {
    const explained = await explainPlan(plan, agentOf(plan));
    return {
      ...explained,
      orchestration: {
        mode: composite.mode,
        maxIterations: 0,
        subAgents: composite.subAgents.map((name) => ({ name, runtime: 'inline' as const })),
      },
      workflow,
    };
  }
  return {
    name: composite.name,
    model: { provider: 'none', id: '' },
    toolLoop: false,
    maxToolRounds: 0,
    instructions: '',
    contexts: [],
    tools: [],
    orchestration: null,
    runtime: { agent: composite.name, workerPolicy: null, tools: [], subAgents: [] },
    warnings: workflow.graph?.warnings ?? [],
    workflow,
  };
}
