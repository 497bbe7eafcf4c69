import { ConfigError, type JSONValue } from '@raf/core';
import type { AgentLike } from '../agent/agent-like.js';
import { WorkflowAgent } from '../agent/workflow-agent.js';
import { agentExecutor } from '../executors/agent-executor.js';
import { functionExecutor, passThrough } from '../executors/function-executor.js';
import { textOf } from '../executors/message-text.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { Workflow, type WorkflowOptions } from '../workflow.js';
import { mentionsAny, mergeAnswers } from './orchestration-support.js';

export interface PipelinePhase {
  mode: 'sequential' | 'concurrent';
  agents: readonly AgentLike[];
}

export interface PipelineOptions extends WorkflowOptions {
  /** Runs first, on the input (the root agent of a YAML pipeline). */
  orchestrator?: AgentLike;
  /** The phase the loop goes back to (0-based); no loop without it. */
  loopFromPhase?: number;
  /** Passes through the loop at most (default 15). */
  maxIterations?: number;
  /** The loop ends once the last phase's answer holds one of these (default APPROVED, LGTM, PASS). */
  loopUntil?: readonly string[];
}

export const DEFAULT_LOOP_UNTIL = ['APPROVED', 'LGTM', 'PASS'];

/**
 * Phases in order (a sequential phase chains its agents, a concurrent one fans out and merges);
 * each gets the previous answer. With `loopFromPhase`, `pipeline_check` sends the last phase's
 * answer back to that phase until it holds a `loopUntil` word or `maxIterations` passes are done.
 */
export function pipelineWorkflow(phases: readonly PipelinePhase[], options: PipelineOptions = {}): Workflow {
  if (phases.length === 0) throw new ConfigError('pipeline needs at least one phase');
  const builder = new WorkflowBuilder();
  let exits: string[] = [];
  const entries: string[] = [];
  const connect = (entry: string) => {
    for (const exit of exits) builder.addEdge(exit, entry);
    if (exits.length === 0) builder.setStart(entry);
  };
  if (options.orchestrator) {
    builder.addNode('pipeline_orchestrator', agentExecutor(options.orchestrator), {
      label: options.orchestrator.name,
    });
    connect('pipeline_orchestrator');
    exits = ['pipeline_orchestrator'];
  }
  phases.forEach((phase, p) => {
    if (phase.agents.length === 0) throw new ConfigError(`pipeline phase ${p} has no agents`);
    if (phase.mode === 'sequential') {
      phase.agents.forEach((agent, i) => {
        const id = `pipe_${p}_seq_${agent.name}`;
        builder.addNode(id, agentExecutor(agent), { label: agent.name });
        if (i === 0) {
          entries.push(id);
          connect(id);
        } else builder.addEdge(`pipe_${p}_seq_${phase.agents[i - 1]!.name}`, id);
      });
      exits = [`pipe_${p}_seq_${phase.agents.at(-1)!.name}`];
      return;
    }
    const source = `pipe_${p}_fanout`;
    builder.addNode(source, passThrough('fan-out'));
    entries.push(source);
    connect(source);
    const ids = phase.agents.map((agent) => {
      const id = `pipe_${p}_par_${agent.name}`;
      builder.addNode(id, agentExecutor(agent), { label: agent.name });
      return id;
    });
    const names = phase.agents.map((a) => a.name);
    const sink = `pipe_${p}_fanin`;
    builder
      .addFanOut(source, ids)
      .addNode(
        sink,
        functionExecutor((answers) => mergeAnswers(names, answers as JSONValue[]), 'merge'),
      )
      .addFanIn(ids, sink);
    exits = [sink];
  });
  const loopFrom = options.loopFromPhase;
  if (loopFrom !== undefined && (loopFrom < 0 || loopFrom >= phases.length))
    throw new ConfigError(`pipeline: loopFromPhase ${loopFrom} is not a phase (0–${phases.length - 1})`);
  const maxIterations = options.maxIterations ?? 15;
  const until = options.loopUntil ?? DEFAULT_LOOP_UNTIL;
  builder.addNode(
    'pipeline_check',
    functionExecutor((message, context) => {
      const text = textOf(message);
      const passes = ((context.state.get('iterations') as number | undefined) ?? 0) + 1;
      context.state.set('iterations', passes);
      const done = loopFrom === undefined || mentionsAny(text, until) || passes >= maxIterations;
      return { done, text };
    }, 'check'),
  );
  connect('pipeline_check');
  builder
    .addNode(
      'pipeline_result',
      functionExecutor((m) => (m as { text: string }).text, 'answer'),
      { output: true },
    )
    .addEdge('pipeline_check', 'pipeline_result', { when: (m) => (m as { done: boolean }).done });
  if (loopFrom !== undefined && maxIterations > 1)
    builder.addLoopback('pipeline_check', entries[loopFrom]!, {
      maxIterations: maxIterations - 1,
      when: (m) => !(m as { done: boolean }).done,
    });
  return new Workflow(builder.build(), { name: 'pipeline', ...options });
}

export function pipelineAgent(
  phases: readonly PipelinePhase[],
  options: PipelineOptions = {},
): WorkflowAgent {
  return new WorkflowAgent(pipelineWorkflow(phases, options));
}
