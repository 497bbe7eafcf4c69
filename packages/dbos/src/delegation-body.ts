import {
  type AgentResponseUpdate,
  type ApprovalResponse,
  ConfigError,
  type ITool,
  type JSONValue,
  type ToolResult,
} from '@raf/core';
import {
  AgentSession,
  type ChatClientAgent,
  delegationTimedOut,
  delegationTimeoutMs,
  manifestOf,
  RunTally,
  type SubAgentSpec,
  subAgentRoutes,
} from '@raf/framework';
import { childAnswerSchema, childAnswerTopic, childPauseKey } from './delegation-pause.js';
import { subAgentsOf } from './delegation-runner.js';
import {
  type DelegationOutcome,
  type DelegationProgress,
  delegationSpecSchema,
  PROGRESS_EVENT,
  parseProxiedAnswer,
  proxyAnswerTopic,
  proxyCallKey,
} from './delegation-spec.js';
import { durableTool, type RunSteps, type StepsLookup } from './durable-steps.js';
import type { DurableTables } from './durable-tables.js';
import type { Dbos } from './load-sdk.js';
import type { DurableAgentRef } from './run-spec.js';
import { makeDurable } from './runtime-helpers.js';
import { SegmentClock } from './segment-clock.js';

/** What a worker needs to run a delegation workflow. */
export interface DelegationBodyHost {
  dbos: Dbos;
  tables: DurableTables;
  /** The coordinator of the run, rebuilt from what the run recorded. */
  agentFor(ref: DurableAgentRef): Promise<ChatClientAgent>;
  steps: StepsLookup;
  /** The steps of the workflows running in this process, by workflow id. */
  runs: Map<string, RunSteps>;
}

// Each sub-agent with its model calls as steps, made once per process.
const durableSubAgents = new WeakMap<SubAgentSpec, ChatClientAgent>();

const PROXY_WAIT_SECONDS = 3600;

/**
 * The child workflow of one delegation, on whichever worker dequeued it: the sub-agent (taken
 * from its coordinator, rebuilt from the run's agent file) runs its task with its projected
 * tools. Its model calls and worker-local tool calls are its steps; a proxied call (writes,
 * skills, memory) is published as an event the coordinator's step answers with a message, both
 * recorded by DBOS, so a recovered child replays them instead of asking again.
 */
export async function runDelegation(
  host: DelegationBodyHost,
  input: unknown,
  signal?: AbortSignal,
): Promise<DelegationOutcome> {
  const spec = delegationSpecSchema.parse(input);
  const coordinator = await host.agentFor(spec.agent);
  const sub = subAgentsOf(coordinator)?.subAgents.find((s) => s.name === spec.subAgent);
  if (!sub)
    throw new ConfigError(
      `durable delegation ${spec.runId}: ${spec.agent.name} has no sub-agent ${spec.subAgent}`,
    );
  const governance = coordinator.governance;
  const { routes } = await subAgentRoutes(sub, governance ? { governance } : {});
  const line = new ProxyLine(host.dbos);
  const views = new WeakMap<ITool, ITool | null>();
  const toolView = (tools: readonly ITool[]) =>
    tools.flatMap((tool) => {
      let view = views.get(tool);
      if (view === undefined) {
        const route = routes[tool.name];
        view =
          route === 'worker-local'
            ? durableTool(tool, host.steps)
            : route === 'main-process-proxy'
              ? proxiedTool(tool, line)
              : null;
        views.set(tool, view);
      }
      return view ? [view] : [];
    });
  // Live once a step's body runs: the replay of what was recorded is over (`SegmentClock`).
  let live = false;
  let clock: SegmentClock | undefined;
  host.runs.set(spec.runId, {
    dbos: host.dbos,
    tables: host.tables,
    runId: spec.runId,
    modelCalls: 0,
    onLive: () => {
      live = true;
      clock?.live();
    },
  });
  try {
    let agent = durableSubAgents.get(sub);
    if (!agent) {
      agent = makeDurable(sub.agent, host.steps);
      durableSubAgents.set(sub, agent);
    }
    const session = new AgentSession(spec.runId);
    const agentName = sub.name;
    let tally = new RunTally();
    const progress: DelegationProgress = [];
    // A worker-local call that asks parks this workflow (its `k`-th pause, as `legs()` parks a
    // run): the coordinator sees the event and parks the run; the answer comes back by message,
    // and the sub-agent goes on in the same session with it. Recorded by DBOS: a replay does not ask again.
    for (let k = 0; ; k++) {
      const answer = k === 0 ? undefined : await parked(host.dbos, tally, k - 1);
      const approvals = answer?.approvals;
      // The child's own clock: at the deadline its model call stops, not only the coordinator's
      // wait. After an answered pause the time starts again, as a plain run's resumed delegation:
      // to the deadline the answer carries (recorded with it, so a replay keeps it), or from now
      // for an older coordinator's answer.
      const deadline =
        answer === undefined || spec.deadline === undefined
          ? spec.deadline
          : (answer.deadline ?? Date.now() + delegationTimeoutMs(sub));
      clock?.dispose();
      clock = deadline === undefined ? undefined : new SegmentClock(deadline, () => live);
      const timeout = clock?.signal;
      const stop = timeout && signal ? AbortSignal.any([timeout, signal]) : (timeout ?? signal);
      tally = new RunTally();
      const updates = agent.run(approvals ? undefined : spec.task, {
        session,
        toolView,
        ...(approvals && { approvals }),
        ...(stop && { signal: stop }),
      });
      for await (const update of updates as AsyncIterable<AgentResponseUpdate>) {
        tally.add(update);
        // After the whole batch (no step of the child runs meanwhile): a replay writes in the same order.
        if (update.type === 'tool-called') {
          progress.push({ callId: update.callId, name: update.name, ok: update.result.ok });
          await host.dbos.setEvent(PROGRESS_EVENT, progress);
        }
      }
      if (timeout?.aborted || !tally.paused) break;
    }
    if (clock?.signal.aborted)
      return { status: 'failed', agent: agentName, error: delegationTimedOut(delegationTimeoutMs(sub)) };
    if (tally.failure !== undefined) return { status: 'failed', agent: agentName, error: tally.failure };
    if (tally.reason === 'cancelled') return { status: 'failed', agent: agentName, error: 'cancelled' };
    // The answer as a plain run's delegation gives it (marked when it stopped early, e.g. at maxToolRounds).
    return { status: 'done', agent: agentName, text: tally.answer };
  } finally {
    clock?.dispose();
    host.runs.delete(spec.runId);
  }
}

/** Publishes the child's `k`-th pause and waits for its answer (the sub-agent's own call ids). */
async function parked(
  dbos: Dbos,
  tally: RunTally,
  k: number,
): Promise<{ approvals: ApprovalResponse[]; deadline: number | undefined }> {
  await dbos.setEvent(childPauseKey(k), { requests: tally.requests });
  let answer: unknown = null;
  while (answer === null) answer = await dbos.recv(childAnswerTopic(k), PROXY_WAIT_SECONDS);
  return childAnswerSchema.parse(answer);
}

/**
 * The child's line to its coordinator: the `n`-th proxied call goes out as event `raf.proxy.<n>`
 * and its answer comes back as message `raf.proxy.answer.<n>`. One call at a time, in call
 * order, so the numbering (and DBOS's step order) is the same when the workflow replays.
 */
class ProxyLine {
  private next = 0;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly dbos: Dbos) {}

  call(call: { callId: string; name: string; arguments: JSONValue }): Promise<ToolResult> {
    const run = this.tail.then(async () => {
      const n = this.next++;
      await this.dbos.setEvent(proxyCallKey(n), call);
      let answer: unknown = null;
      while (answer === null) answer = await this.dbos.recv(proxyAnswerTopic(n), PROXY_WAIT_SECONDS);
      return parseProxiedAnswer(answer);
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}

/** The child's stand-in for a tool that runs in the coordinator: the model sees the real one. */
function proxiedTool(local: ITool, line: ProxyLine): ITool {
  const tool: ITool = {
    name: local.name,
    description: local.description,
    parameters: local.parameters,
    execute: (args, ctx) => line.call({ callId: ctx.callId, name: local.name, arguments: args as JSONValue }),
  };
  if (local.kind !== undefined) tool.kind = local.kind;
  tool.manifest = manifestOf(local);
  const validate = local.validateArguments;
  // Checked here too, but the coordinator gets the arguments as the model wrote them.
  if (validate)
    tool.validateArguments = (args) => {
      const checked = validate.call(local, args);
      return checked.ok ? { ok: true } : checked;
    };
  return tool;
}
