import { availableParallelism } from 'node:os';
import {
  type AgentResponseUpdate,
  type ApprovalResponse,
  ConfigError,
  createToolManifest,
  defineTool,
  getErrorMessage,
  type ITool,
  type JSONValue,
  type ToolApprovalRequestUpdate,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from '@raf/core';
import * as z from 'zod';
import { ToolSuspension } from '../pipeline/tool-suspension.js';
import { BUILTIN_TOOL_MANIFESTS } from '../runtime-policy/builtin-manifests.js';
import { savedTask, savedTasks, type TaskState, taskJSON } from './paused-run.js';
import type { DelegationRunner, SubAgentOutcome } from './sub-agent.js';

export interface DelegationToolsOptions {
  /** Delegations allowed per run of the parent, each task of `delegate_parallel` counting (default 15). */
  maxIterations?: number;
  /** Tasks of one `delegate_parallel` running at once (default: the machine's cores). */
  maxConcurrency?: number;
}

// Long enough for any delegation: each one is bounded by its sub-agent's own `timeoutSecs`.
const DELEGATION_TIMEOUT_MS = 24 * 3600 * 1000;

function describeAgents(runner: DelegationRunner): string {
  return runner.subAgents.map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ''}`).join('\n');
}

function progressOf(
  agent: string,
  ctx: ToolExecutionContext,
): ((u: AgentResponseUpdate) => void) | undefined {
  const report = ctx.reportProgress;
  if (!report) return undefined;
  return (update) => {
    if (update.type === 'tool-called') report(`${agent} → ${update.name} ${update.result.ok ? '✓' : '✗'}`);
  };
}

function settle(agent: string, task: string, outcome: SubAgentOutcome): TaskState {
  if (outcome.status === 'done') return { agent, task, ok: true, answer: outcome.text };
  if (outcome.status === 'failed') return { agent, task, ok: false, error: outcome.error };
  return { agent, task, paused: outcome.state, requestIds: outcome.requests.map((r) => r.callId) };
}

/**
 * The delegating coordinator's tools (SPEC §7.1): `delegate_task {agent, task}` and
 * `delegate_parallel {tasks: [{agent, task}]}`, over a `SubAgentRunner`. A sub-agent that pauses
 * for approval suspends the parent's run (`ToolSuspension`): its requests reach the root with
 * `agentPath`, and the resumed call continues the same delegation. A failure is a result the
 * model reads, never a crash of the parent's run. Make a new pair per run: the iteration count
 * lives in them.
 */
export function createDelegationTools(
  runner: DelegationRunner,
  options: DelegationToolsOptions = {},
): ITool[] {
  const names = runner.subAgents.map((s) => s.name);
  const [first, ...rest] = names;
  if (first === undefined) throw new ConfigError('delegation tools need at least one sub-agent');
  const maxIterations = options.maxIterations ?? 15;
  const maxConcurrency = Math.max(1, options.maxConcurrency ?? availableParallelism());
  let used = 0;
  const agentName = z.enum([first, ...rest]).describe('the sub-agent to hand the task to');
  const taskText = z.string().min(1).describe('what to do, with everything the sub-agent needs to know');
  const budget = (n: number): ToolResult | undefined => {
    if (used + n <= maxIterations) {
      used += n;
      return undefined;
    }
    return toolFailure(
      `Delegation limit reached: ${maxIterations} delegations per run (maxIterations); ${maxIterations - used} left. Finish with what you have.`,
    );
  };

  const runTask = async (
    agent: string,
    task: string,
    callId: string,
    ctx: ToolExecutionContext,
    resume?: { state: JSONValue; approvals: ApprovalResponse[] },
  ): Promise<{ state: TaskState; requests: ToolApprovalRequestUpdate[] }> => {
    try {
      const onUpdate = progressOf(agent, ctx);
      const outcome = await runner.run({
        agent,
        task,
        callId,
        signal: ctx.signal,
        ...(resume && { resume }),
        ...(onUpdate && { onUpdate }),
      });
      return {
        state: settle(agent, task, outcome),
        requests: outcome.status === 'paused' ? outcome.requests : [],
      };
    } catch (error) {
      return { state: { agent, task, ok: false, error: getErrorMessage(error) }, requests: [] };
    }
  };

  const delegateTask = defineTool({
    name: 'delegate_task',
    description: `Hands one task to a sub-agent and returns its answer. Sub-agents:\n${describeAgents(runner)}`,
    parameters: z.object({ agent: agentName, task: taskText }),
    manifest: createToolManifest({
      ...BUILTIN_TOOL_MANIFESTS.delegate_task,
      timeoutMs: DELEGATION_TIMEOUT_MS,
    }),
    execute: async ({ agent, task }, ctx) => {
      let saved: TaskState | undefined;
      try {
        saved = savedTask(ctx.resume?.state);
      } catch (error) {
        return toolFailure(getErrorMessage(error));
      }
      let ran: Awaited<ReturnType<typeof runTask>>;
      if (saved && 'paused' in saved) {
        ran = await runTask(saved.agent, saved.task, ctx.callId, ctx, {
          state: saved.paused,
          approvals: ctx.resume?.approvals ?? [],
        });
      } else {
        const refused = budget(1);
        if (refused) return refused;
        ran = await runTask(agent, task, ctx.callId, ctx);
      }
      const { state } = ran;
      if ('paused' in state) throw new ToolSuspension(ran.requests, taskJSON(state));
      return state.ok
        ? toolSuccess({ agent: state.agent, answer: state.answer })
        : toolFailure(`Sub-agent ${state.agent} failed: ${state.error}`);
    },
  });

  const delegateParallel = defineTool({
    name: 'delegate_parallel',
    description: `Hands several independent tasks to sub-agents at once; the answers come back in task order. Sub-agents:\n${describeAgents(runner)}`,
    parameters: z.object({
      tasks: z.array(z.object({ agent: agentName, task: taskText })).min(1),
    }),
    manifest: createToolManifest({
      ...BUILTIN_TOOL_MANIFESTS.delegate_parallel,
      timeoutMs: DELEGATION_TIMEOUT_MS,
    }),
    execute: async ({ tasks }, ctx) => {
      let saved: TaskState[] | undefined;
      try {
        saved = savedTasks(ctx.resume?.state);
      } catch (error) {
        return toolFailure(getErrorMessage(error));
      }
      if (!saved) {
        const refused = budget(tasks.length);
        if (refused) return refused;
      }
      const states: TaskState[] = saved ? [...saved] : tasks.map((t) => ({ ...t, ok: false, error: '' }));
      const requests: ToolApprovalRequestUpdate[][] = states.map(() => []);
      const work = states
        .map((state, i) => ({ state, i }))
        .filter(({ state }) => !saved || 'paused' in state);
      let next = 0;
      const worker = async () => {
        while (next < work.length) {
          const { state, i } = work[next++]!;
          const resume =
            'paused' in state
              ? {
                  state: state.paused,
                  approvals: (ctx.resume?.approvals ?? []).filter((a) => state.requestIds.includes(a.callId)),
                }
              : undefined;
          const ran = await runTask(state.agent, state.task, `${ctx.callId}/${i}`, ctx, resume);
          states[i] = ran.state;
          requests[i] = ran.requests;
        }
      };
      await Promise.all(Array.from({ length: Math.min(maxConcurrency, work.length) }, worker));
      const pending = requests.flat();
      if (pending.length > 0) throw new ToolSuspension(pending, taskJSON({ tasks: states }));
      return toolSuccess({
        results: states.map((s) =>
          'answer' in s
            ? { agent: s.agent, ok: true, answer: s.answer }
            : { agent: s.agent, ok: false, error: 'error' in s ? s.error : '' },
        ),
      });
    },
  });
  return [delegateTask, delegateParallel];
}
