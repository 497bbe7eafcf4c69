import type { JSONValue } from '@raf/core';
import type { AgentLike } from '../agent/agent-like.js';
import { WorkflowAgent } from '../agent/workflow-agent.js';
import { agentExecutor } from '../executors/agent-executor.js';
import { functionExecutor, passThrough } from '../executors/function-executor.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { Workflow, type WorkflowOptions } from '../workflow.js';
import { mergeAnswers, requireAgents } from './orchestration-support.js';

/**
 * `concurrent_source` → fan-out → `concurrent_agent_i` (all on the same input) → fan-in →
 * `concurrent_sink`: the answer carries every agent's output, in agent order, under its name.
 */
export function concurrentWorkflow(agents: readonly AgentLike[], options: WorkflowOptions = {}): Workflow {
  requireAgents('concurrent', agents, 1);
  const ids = agents.map((_, i) => `concurrent_agent_${i}`);
  const names = agents.map((a) => a.name);
  const builder = new WorkflowBuilder()
    .addNode('concurrent_source', passThrough('source'))
    .setStart('concurrent_source');
  agents.forEach((agent, i) => {
    builder.addNode(ids[i]!, agentExecutor(agent), { label: agent.name });
  });
  builder
    .addFanOut('concurrent_source', ids)
    .addNode(
      'concurrent_sink',
      functionExecutor((answers, context) => {
        const list = answers as JSONValue[];
        context.state.set('answers', Object.fromEntries(names.map((n, i) => [n, list[i] ?? null])));
        return mergeAnswers(names, list);
      }, 'merge'),
      { output: true },
    )
    .addFanIn(ids, 'concurrent_sink');
  return new Workflow(builder.build(), { name: 'concurrent', ...options });
}

export function concurrentAgent(agents: readonly AgentLike[], options: WorkflowOptions = {}): WorkflowAgent {
  return new WorkflowAgent(concurrentWorkflow(agents, options));
}
