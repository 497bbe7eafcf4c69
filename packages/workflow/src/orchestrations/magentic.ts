import {
  type AgentResponseUpdate,
  ConfigError,
  createToolManifest,
  defineTool,
  getErrorMessage,
  type ITool,
  toolFailure,
  toolSuccess,
} from '@raf/core';
import * as z from 'zod';
import type { AgentLike } from '../agent/agent-like.js';

export interface SubAgentRunOptions {
  signal?: AbortSignal;
  /** The sub-agent's updates as they come (for a UI). */
  onUpdate?: (update: AgentResponseUpdate) => void;
}

/**
 * Runs a named sub-agent on one task and returns its answer: what `delegate_task` and
 * `delegate_parallel` call. The default runner runs agents in this process; the runtime-policy
 * runner runs each in a worker process with its projected tools.
 */
export interface SubAgentRunner {
  run(agentName: string, task: string, options?: SubAgentRunOptions): Promise<{ text: string }>;
}

/** Runs sub-agents in this process, each task in a fresh conversation. */
export class InProcessSubAgentRunner implements SubAgentRunner {
  private readonly agents: ReadonlyMap<string, AgentLike>;

  constructor(agents: readonly AgentLike[]) {
    this.agents = new Map(agents.map((a) => [a.name, a]));
  }

  async run(agentName: string, task: string, options: SubAgentRunOptions = {}): Promise<{ text: string }> {
    const agent = this.agents.get(agentName);
    if (!agent)
      throw new ConfigError(`no sub-agent "${agentName}"; known: ${[...this.agents.keys()].join(', ')}`);
    let text = '';
    for await (const update of agent.run(task, { ...(options.signal && { signal: options.signal }) })) {
      options.onUpdate?.(update);
      if (update.type === 'text-delta') text += update.delta;
      if (update.type === 'error') throw new Error(`${agentName}: ${update.message}`);
      if (update.type === 'finish' && update.reason === 'awaitingApproval')
        throw new Error(`${agentName} paused for an approval, which an in-process delegate cannot ask for`);
    }
    return { text };
  }
}

export interface DelegationToolsOptions {
  runner: SubAgentRunner;
  /** The sub-agents the coordinator may call, with what each is for. */
  agents: readonly { name: string; description?: string | undefined }[];
}

const DELEGATION_MANIFEST = createToolManifest({
  kind: 'delegation',
  executionMode: 'sequential',
  supportedInWorker: false,
  workerRoutingHint: 'disabled',
});

/**
 * The magentic coordinator's tools: `delegate_task {agent, task}` and
 * `delegate_parallel {tasks: [{agent, task}]}` (sequential, `kind: delegation`). Give them to the
 * root agent with `maxToolRounds` = the orchestration's `maxIterations`.
 */
export function createDelegationTools(options: DelegationToolsOptions): ITool[] {
  const names = options.agents.map((a) => a.name);
  if (names.length === 0) throw new ConfigError('magentic needs at least one sub-agent');
  const roster = options.agents
    .map((a) => `${a.name}${a.description ? ` (${a.description})` : ''}`)
    .join('; ');
  const agentName = z.enum(names as [string, ...string[]]).describe('the sub-agent to run');
  const task = z.string().min(1).describe('everything the sub-agent needs to know: it sees nothing else');
  const run = (name: string, text: string, signal: AbortSignal | undefined) =>
    options.runner.run(name, text, { ...(signal && { signal }) });
  return [
    defineTool({
      name: 'delegate_task',
      description: `Give one task to a sub-agent and get its answer. Sub-agents: ${roster}.`,
      parameters: z.object({ agent: agentName, task }),
      manifest: DELEGATION_MANIFEST,
      kind: 'delegation',
      async execute({ agent, task: text }, context) {
        try {
          return toolSuccess((await run(agent, text, context.signal)).text);
        } catch (error) {
          return toolFailure(`${agent} failed: ${getErrorMessage(error)}`);
        }
      },
    }),
    defineTool({
      name: 'delegate_parallel',
      description: `Give several independent tasks to sub-agents at once; the answers come back in order. Sub-agents: ${roster}.`,
      parameters: z.object({ tasks: z.array(z.object({ agent: agentName, task })).min(1) }),
      manifest: DELEGATION_MANIFEST,
      kind: 'delegation',
      async execute({ tasks }, context) {
        const settled = await Promise.allSettled(tasks.map((t) => run(t.agent, t.task, context.signal)));
        const answers = settled.map((s, i) =>
          s.status === 'fulfilled'
            ? { agent: tasks[i]!.agent, ok: true, answer: s.value.text }
            : { agent: tasks[i]!.agent, ok: false, error: getErrorMessage(s.reason) },
        );
        return toolSuccess(answers);
      },
    }),
  ];
}
