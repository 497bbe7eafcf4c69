import type { JSONValue } from '@raf/core';
import type { AgentLike } from '../agent/agent-like.js';
import { WorkflowAgent } from '../agent/workflow-agent.js';
import { agentExecutor } from '../executors/agent-executor.js';
import { functionExecutor } from '../executors/function-executor.js';
import { agentInputOf } from '../executors/message-text.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { Workflow, type WorkflowOptions } from '../workflow.js';
import { firstNamed, requireAgents } from './orchestration-support.js';

export interface HandoffOptions extends WorkflowOptions {
  /** What the triage's answer must name to hand off: the expert's `name` (default) or its `description`. */
  routingField?: 'name' | 'description';
}

/**
 * The triage agent answers first; the expert its answer names (earliest mention) gets the
 * original input and gives the answer. When it names none, the triage's answer is the answer.
 */
export function handoffWorkflow(
  triage: AgentLike,
  experts: readonly AgentLike[],
  options: HandoffOptions = {},
): Workflow {
  requireAgents('handoff', [triage, ...experts], 2);
  const keys = experts.map((e) =>
    options.routingField === 'description' && e.description ? e.description : e.name,
  );
  const builder = new WorkflowBuilder()
    .addNode(
      'handoff_triage',
      agentExecutor(triage, {
        input: (message, context) => {
          context.state.set('input', message);
          return agentInputOf(message);
        },
        output: (text, _message, context) => {
          const key = firstNamed(text, keys);
          const route = key === undefined ? null : (experts[keys.indexOf(key)]?.name ?? null);
          context.state.set('handoff', route);
          return { text, route };
        },
      }),
      { label: triage.name },
    )
    .setStart('handoff_triage');
  experts.forEach((expert, i) => {
    builder.addNode(
      `handoff_agent_${i}`,
      agentExecutor(expert, {
        input: (message, context) => agentInputOf(context.state.get('input') ?? message),
      }),
      { output: true, label: expert.name },
    );
  });
  builder
    .addNode(
      'handoff_fallback',
      functionExecutor((m) => (m as { text: JSONValue }).text, 'triage answer'),
      {
        output: true,
      },
    )
    .addSwitch('handoff_triage', [
      ...experts.map((expert, i) => ({
        target: `handoff_agent_${i}`,
        when: (m: JSONValue) => (m as { route: string | null }).route === expert.name,
        label: expert.name,
      })),
      { target: 'handoff_fallback', label: 'no match' },
    ]);
  return new Workflow(builder.build(), { name: 'handoff', ...options });
}

export function handoffAgent(
  triage: AgentLike,
  experts: readonly AgentLike[],
  options: HandoffOptions = {},
): WorkflowAgent {
  return new WorkflowAgent(handoffWorkflow(triage, experts, options));
}
