import { hostname } from 'node:os';
import type { ITool } from '@raf/core';
import {
  type ChatClientAgent,
  createDelegationTools,
  type DelegationRunner,
  type SubAgentsProvider,
  sessionStoreKit,
} from '@raf/framework';
import { subAgentsOf } from './delegation-runner.js';
import { DurableModelClient, durableTool, type RunSteps, type StepsLookup } from './durable-steps.js';
import type { DurableTables } from './durable-tables.js';
import type { Dbos } from './load-sdk.js';
import type { DurableAgentRef } from './run-spec.js';

/** How a process keys the agents runs name: by file, folder and overrides, or by name. */
export function keyOf(ref: DurableAgentRef): string {
  return ref.file
    ? `file:${ref.cwd ?? ''}:${ref.file}:${JSON.stringify(ref.overrides ?? {})}`
    : `name:${ref.name}`;
}

/**
 * The agent with the step decorator around its model client: each model call of its runs is a
 * step (`model:<n>`), from outside the loop (`ChatClientAgent.withChatClient`).
 */
export function makeDurable(agent: ChatClientAgent, steps: () => RunSteps | undefined): ChatClientAgent {
  return agent.withChatClient((client) => new DurableModelClient(client, steps));
}

/**
 * A run's tools as steps (`tool:<call id>`), except the delegation tools of an agent with
 * sub-agents: those are made once per execution over the durable runner (each delegation a child
 * workflow; the queue, not the tool, bounds how many run at once) and count delegations per run.
 */
export function durableToolView(
  agent: ChatClientAgent,
  steps: StepsLookup,
  runner: (provider: SubAgentsProvider) => DelegationRunner,
): (tools: readonly ITool[]) => ITool[] {
  const provider = subAgentsOf(agent);
  const delegation = provider
    ? createDelegationTools(runner(provider), {
        maxIterations: provider.maxIterations,
        maxConcurrency: Number.MAX_SAFE_INTEGER,
      })
    : [];
  const byName = new Map(delegation.map((tool) => [tool.name, tool]));
  const wrapped = new WeakMap<ITool, ITool>();
  return (tools) =>
    tools.map((tool) => {
      const known = wrapped.get(tool);
      if (known) return known;
      const durable = byName.get(tool.name) ?? durableTool(tool, steps);
      wrapped.set(tool, durable);
      return durable;
    });
}

/**
 * Takes over the work of processes that died: on this host a process whose pid is gone or names
 * another process now, on another one whose heartbeat is older than `staleMs`, or one that
 * released its runs. One worker
 * claims each dead process (compare-and-set); its pending workflows of each name go back on that
 * name's queue (runs on the run queue, delegations on the delegation queue).
 */
export async function recoverDeadExecutors(
  dbos: Pick<Dbos, 'listWorkflows' | 'resumeWorkflow'>,
  tables: DurableTables,
  me: string,
  options: { staleMs: number; queues: readonly [workflowName: string, queueName: string][] },
): Promise<void> {
  const now = Date.now();
  for (const row of await tables.candidates(me)) {
    const dead = row.released
      ? true
      : row.host === hostname()
        ? !sessionStoreKit.processAlive(row.pid, row.proc_start) || now - row.heartbeat_at > 60_000
        : now - row.heartbeat_at > options.staleMs;
    if (!dead || !(await tables.claimExecutor(row.executor_id, me))) continue;
    try {
      for (const [workflowName, queueName] of options.queues) {
        const pending = await dbos.listWorkflows({
          status: 'PENDING',
          executorId: row.executor_id,
          workflowName,
          loadInput: false,
          loadOutput: false,
        });
        for (const run of pending) await dbos.resumeWorkflow(run.workflowID, { queueName });
      }
    } catch (error) {
      // A claim kept after a failed re-queue (a pool timeout under load) would leave the dead
      // executor's remaining runs PENDING for ever: give it back, so a later pass (here or on
      // another worker) claims it again; runs already re-queued are no longer PENDING there.
      await tables.releaseClaim(row.executor_id, me).catch(() => undefined);
      throw error;
    }
  }
  await tables.forgetRecovered(10 * 60_000);
}
