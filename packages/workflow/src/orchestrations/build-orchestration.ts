import { ConfigError } from '@raf/core';
import type { AgentLike } from '../agent/agent-like.js';
import type { Workflow, WorkflowOptions } from '../workflow.js';
import { concurrentWorkflow } from './concurrent.js';
import { groupChatWorkflow } from './group-chat.js';
import { handoffWorkflow } from './handoff.js';
import type { OrchestrationConfig } from './orchestration-config.js';
import { pipelineWorkflow } from './pipeline.js';
import { sequentialWorkflow } from './sequential.js';
import { voteWorkflow } from './vote.js';

export interface OrchestrationParticipants {
  /** The root agent (its sub-agents removed): the pipeline's orchestrator, handoff's triage without `triage`, groupChat's coordinator without `coordinator`. */
  root?: AgentLike;
  /** The sub-agents, in declaration order. */
  agents: readonly AgentLike[];
}

/** A problem of an orchestration's settings, at its field (`metadata.orchestration.<path>`). */
export interface OrchestrationProblem {
  path: (string | number)[];
  message: string;
}

/** Whether the root agent takes part in this mode (upstream: magentic, pipeline, handoff without triage, groupChat without coordinator). */
export function rootTakesPart(config: OrchestrationConfig): boolean {
  return (
    config.mode === 'magentic' ||
    config.mode === 'pipeline' ||
    (config.mode === 'handoff' && config.triage === undefined) ||
    (config.mode === 'groupChat' && config.coordinator === undefined)
  );
}

/** Every reference to a sub-agent that names none, and settings that do not fit together. */
export function orchestrationProblems(
  config: OrchestrationConfig,
  names: readonly string[],
): OrchestrationProblem[] {
  const problems: OrchestrationProblem[] = [];
  const known = names.join(', ');
  const check = (path: (string | number)[], name: string | undefined) => {
    if (name !== undefined && !names.includes(name))
      problems.push({ path, message: `"${name}" is not a sub-agent (known: ${known})` });
  };
  if (config.mode === 'handoff') {
    check(['triage'], config.triage);
    if (config.triage !== undefined && names.length < 2)
      problems.push({ path: ['triage'], message: 'handoff needs at least one sub-agent besides the triage' });
  }
  if (config.mode === 'groupChat') {
    check(['coordinator'], config.coordinator);
    config.speakerOrder?.forEach((entry, i) => {
      if (typeof entry === 'string') check(['speakerOrder', i], entry);
    });
  }
  if (config.mode === 'vote' && config.aggregator === 'weighted' && config.weights?.length !== names.length)
    problems.push({
      path: ['weights'],
      message: `weighted voting needs one weight per sub-agent (${names.length} sub-agents, ${config.weights?.length ?? 0} weights)`,
    });
  if (config.mode === 'pipeline') {
    if (!config.phases || config.phases.length === 0)
      problems.push({ path: ['phases'], message: 'pipeline needs phases: [{ mode, agents: [...] }]' });
    for (const [p, phase] of (config.phases ?? []).entries())
      for (const [i, name] of phase.agents.entries()) check(['phases', p, 'agents', i], name);
    if (config.loopFromPhase !== undefined && config.phases && config.loopFromPhase >= config.phases.length)
      problems.push({
        path: ['loopFromPhase'],
        message: `phase ${config.loopFromPhase} does not exist (0–${config.phases.length - 1})`,
      });
  }
  return problems;
}

/**
 * The workflow of an orchestration mode other than magentic (whose coordinator is an agent with
 * the delegation tools of `@raf/framework`: `AgentBuilder.withSubAgents`, `createDelegationTools`).
 */
export function orchestrationWorkflow(
  config: OrchestrationConfig,
  participants: OrchestrationParticipants,
  options: WorkflowOptions = {},
): Workflow {
  const { root, agents } = participants;
  const problems = orchestrationProblems(
    config,
    agents.map((a) => a.name),
  );
  if (problems.length > 0)
    throw new ConfigError(
      `metadata.orchestration: ${problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; ')}`,
    );
  const byName = (name: string) => agents.find((a) => a.name === name) as AgentLike;
  const others = (name: string) => agents.filter((a) => a.name !== name);
  switch (config.mode) {
    case 'sequential':
      return sequentialWorkflow(agents, {
        ...options,
        ...(config.passOutput !== undefined && { passOutput: config.passOutput }),
      });
    case 'concurrent':
      return concurrentWorkflow(agents, options);
    case 'handoff': {
      const triage = config.triage !== undefined ? byName(config.triage) : root;
      if (!triage) throw new ConfigError('handoff needs orchestration.triage or a root agent');
      return handoffWorkflow(triage, config.triage !== undefined ? others(config.triage) : agents, {
        ...options,
        ...(config.routingField && { routingField: config.routingField }),
      });
    }
    case 'groupChat': {
      const coordinator = config.coordinator !== undefined ? byName(config.coordinator) : root;
      return groupChatWorkflow(config.coordinator !== undefined ? others(config.coordinator) : agents, {
        ...options,
        ...(coordinator && { coordinator }),
        ...(config.maxRounds !== undefined && { maxRounds: config.maxRounds }),
        ...(config.selector && { selector: config.selector }),
        ...(config.speakerOrder && { speakerOrder: config.speakerOrder }),
        ...(config.terminationKeywords && { terminationKeywords: config.terminationKeywords }),
      });
    }
    case 'vote':
      return voteWorkflow(agents, {
        ...options,
        ...(config.aggregator && { aggregator: config.aggregator }),
        ...(config.weights && { weights: config.weights }),
        ...(config.votingRounds !== undefined && { votingRounds: config.votingRounds }),
      });
    case 'pipeline':
      return pipelineWorkflow(
        (config.phases ?? []).map((phase) => ({ mode: phase.mode, agents: phase.agents.map(byName) })),
        {
          ...options,
          ...(root && { orchestrator: root }),
          ...(config.loopFromPhase !== undefined && { loopFromPhase: config.loopFromPhase }),
          ...(config.maxIterations !== undefined && { maxIterations: config.maxIterations }),
          ...(config.loopUntil && { loopUntil: config.loopUntil }),
        },
      );
    case 'magentic':
      throw new ConfigError(
        'magentic is a coordinator agent with delegate_task/delegate_parallel: see AgentBuilder.withSubAgents and createDelegationTools in @raf/framework',
      );
  }
}
