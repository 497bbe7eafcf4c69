import { getErrorMessage } from '@raf/core';
import { delegationTimeoutMs } from './delegation-timeout.js';
import { runInline } from './inline-run.js';
import { answersFor, approvedTargets, type PausedDelegation, pausedDelegation } from './paused-run.js';
import type { SubAgentOutcome, SubAgentRunner, SubAgentRunRequest, SubAgentSpec } from './sub-agent.js';
import { type ParentOfSubAgents, projectSubAgent } from './sub-agent-projection.js';
import { runInWorker } from './worker-delegation.js';
import { WorkerPool } from './worker-process.js';

export interface SubAgentRunnerOptions {
  /** The parent: its governance and tools (the child is never looser than it). */
  parent?: ParentOfSubAgents;
  /** Spare worker processes kept started, so a delegation need not wait for one to boot (default 1). */
  warmWorkers?: number;
}

/**
 * Runs delegations to `subAgents`: each in a fresh worker process (a spare when one is warm), or
 * in this process for `runtime: inline`, always with the sub-agent's projection under the parent.
 */
export function createSubAgentRunner(
  subAgents: readonly SubAgentSpec[],
  options: SubAgentRunnerOptions = {},
): SubAgentRunner {
  const byName = new Map(subAgents.map((s) => [s.name, s]));
  const parent = options.parent ?? {};
  const workers = subAgents.filter((s) => s.worker && s.runtime !== 'inline');
  let pool: WorkerPool | undefined;
  const poolOf = () => {
    pool ??= new WorkerPool(options.warmWorkers ?? 1, [...new Set(workers.map((s) => s.worker!.module))]);
    return pool;
  };

  async function run(request: SubAgentRunRequest): Promise<SubAgentOutcome> {
    const spec = byName.get(request.agent);
    if (!spec) {
      return {
        status: 'failed',
        agent: request.agent,
        error: `there is no sub-agent named '${request.agent}'; there are ${[...byName.keys()].join(', ')}`,
      };
    }
    try {
      let paused: PausedDelegation | undefined;
      let answers: ReturnType<typeof answersFor> | undefined;
      if (request.resume) {
        paused = pausedDelegation(request.resume.state, spec.name);
        answers = answersFor(request.callId, request.resume.approvals);
      }
      const projection = await projectSubAgent(spec, parent, request.signal);
      const timeoutMs = delegationTimeoutMs(spec);
      if (spec.runtime === 'inline' || !spec.worker)
        return await runInline(spec, projection, request, timeoutMs, paused, answers);
      return await runInWorker({
        worker: poolOf().take(),
        spec,
        factory: spec.worker,
        projection,
        request,
        ...(paused && { paused }),
        ...(answers && { answers }),
        approved: paused && answers ? approvedTargets(paused, answers) : new Map(),
        timeoutMs,
      });
    } catch (error) {
      return { status: 'failed', agent: spec.name, error: getErrorMessage(error) };
    }
  }

  return {
    subAgents,
    run,
    async warm() {
      if (workers.length > 0 && (options.warmWorkers ?? 1) > 0) await poolOf().ready();
    },
    async close() {
      await pool?.close();
      pool = undefined;
    },
  };
}
