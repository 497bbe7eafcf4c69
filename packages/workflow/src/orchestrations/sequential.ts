import type { AgentLike } from '../agent/agent-like.js';
import { WorkflowAgent } from '../agent/workflow-agent.js';
import { agentExecutor } from '../executors/agent-executor.js';
import { agentInputOf } from '../executors/message-text.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { Workflow, type WorkflowOptions } from '../workflow.js';
import { requireAgents } from './orchestration-support.js';

export interface SequentialOptions extends WorkflowOptions {
  /** Each agent gets the previous one's answer (default); false: each gets the original input. */
  passOutput?: boolean;
}

/** `seq_agent_0 → seq_agent_1 → …`: the last agent's answer is the output. */
export function sequentialWorkflow(agents: readonly AgentLike[], options: SequentialOptions = {}): Workflow {
  requireAgents('sequential', agents, 1);
  const passOutput = options.passOutput ?? true;
  const builder = new WorkflowBuilder().setStart('seq_agent_0');
  agents.forEach((agent, i) => {
    builder.addNode(
      `seq_agent_${i}`,
      agentExecutor(agent, {
        input: (message, context) => {
          if (i === 0) context.state.set('input', message);
          return agentInputOf(passOutput ? message : (context.state.get('input') ?? message));
        },
      }),
      { output: i === agents.length - 1, label: agent.name },
    );
    if (i > 0) builder.addEdge(`seq_agent_${i - 1}`, `seq_agent_${i}`);
  });
  return new Workflow(builder.build(), { name: 'sequential', ...options });
}

export function sequentialAgent(
  agents: readonly AgentLike[],
  options: SequentialOptions = {},
): WorkflowAgent {
  return new WorkflowAgent(sequentialWorkflow(agents, options));
}
