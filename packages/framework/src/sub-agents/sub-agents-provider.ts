import type { ContextResult, IContextProvider, ITool } from '@raf/core';
import { createDelegationTools, type DelegationToolsOptions } from './delegation-tools.js';
import type { SubAgentRunner, SubAgentSpec } from './sub-agent.js';

export const SUB_AGENTS_PROVIDER_NAME = 'SubAgentsProvider';

function instructions(subAgents: readonly SubAgentSpec[]): string {
  const list = subAgents.map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ''}`).join('\n');
  return `You coordinate sub-agents. Hand them work with delegate_task (one task) or delegate_parallel (independent tasks at once); each answers with its result.\n${list}`;
}

/**
 * The delegating coordinator (SPEC §7.1): gives the agent `delegate_task` and `delegate_parallel`
 * over its sub-agents, and says who they are. A fresh pair per run: `maxIterations` counts the
 * delegations of one run. The first run starts a spare worker.
 */
export class SubAgentsProvider implements IContextProvider {
  readonly name = SUB_AGENTS_PROVIDER_NAME;
  readonly kind = 'sub-agents';
  readonly injectsTools = true;
  private template: ITool[] | undefined;

  constructor(
    readonly runner: SubAgentRunner,
    private readonly options: DelegationToolsOptions = {},
  ) {}

  get subAgents(): readonly SubAgentSpec[] {
    return this.runner.subAgents;
  }

  /** Delegations allowed per run. */
  get maxIterations(): number {
    return this.options.maxIterations ?? 15;
  }

  /** The tools as known before a run (for `explain` and the diagnostic). */
  get tools(): readonly ITool[] {
    this.template ??= createDelegationTools(this.runner, this.options);
    return this.template;
  }

  /** Stops the runner's worker processes (its warm pool): the agent's `close()` calls it. */
  close(): Promise<void> {
    return this.runner.close();
  }

  onInvoking(): ContextResult {
    void this.runner.warm();
    return {
      instructions: instructions(this.runner.subAgents),
      tools: createDelegationTools(this.runner, this.options),
    };
  }
}
