import type {
  AgentResponseUpdate,
  ApprovalResponse,
  FinishReason,
  ITool,
  ToolApprovalRequestUpdate,
} from '@raf/core';
import { AgentSession, type ChatClientAgent, parseSessionSnapshot } from '@raf/framework';
import type { PostgresStore } from '@raf/postgres';
import type { Dbos } from './load-sdk.js';
import { park } from './park.js';
import {
  approvalsSchema,
  type DurableRunOutcome,
  type DurableRunSpec,
  type RunListener,
  type RunState,
  STATUS_EVENT,
} from './run-spec.js';

export interface AgentLegsHost {
  dbos: Dbos;
  store: PostgresStore;
  /** The listener of the run in this process now (one may attach or go while it runs). */
  listener: () => RunListener | undefined;
  /** The run's tools as steps (`durableToolView`). */
  toolView: (tools: readonly ITool[]) => ITool[];
}

/**
 * A chat agent's durable run: its turns on the session (loaded and saved as steps), parked
 * between them while approvals wait (`park`); the next leg resumes the batch with the answer.
 * Replayed legs take their model and tool calls from the record.
 */
export async function runAgentLegs(
  host: AgentLegsHost,
  agent: ChatClientAgent,
  spec: DurableRunSpec,
): Promise<DurableRunOutcome> {
  const { dbos, store, toolView } = host;
  const ask = host.listener()?.onInputRequest;
  const snapshot = await dbos.runStep(async () => (await store.sessions.load(spec.sessionId)) ?? null, {
    name: 'session:load',
  });
  const session = snapshot
    ? AgentSession.fromJSON(parseSessionSnapshot(snapshot))
    : new AgentSession(spec.sessionId);
  let approvals: ApprovalResponse[] | undefined;
  for (let leg = 0; ; leg++) {
    const turn = await collectTurn(
      host,
      agent.run(approvals ? undefined : spec.input, {
        session,
        toolView,
        ...(approvals && { approvals }),
        ...(ask && { onInputRequest: ask }),
      }),
    );
    await dbos.runStep(async () => store.sessions.save(session.toJSON()), { name: `session:save:${leg}` });
    if (turn.reason !== 'awaitingApproval') {
      await dbos.setEvent(STATUS_EVENT, { state: 'ended', reason: turn.reason } satisfies RunState);
      return {
        runId: spec.runId,
        sessionId: session.id,
        reason: turn.reason,
        text: turn.text,
        ...(turn.error && { error: turn.error }),
      };
    }
    approvals = await park(
      dbos,
      { state: 'paused', pause: leg, requests: turn.requests },
      approvalsSchema,
      host.listener(),
    );
  }
}

/** One turn's updates, each told to the listener, gathered into how it ended. */
async function collectTurn(host: AgentLegsHost, updates: AsyncIterable<AgentResponseUpdate>) {
  let reason: FinishReason = 'other';
  let text = '';
  let error: { code: string; message: string } | undefined;
  const requests: ToolApprovalRequestUpdate[] = [];
  for await (const update of updates) {
    host.listener()?.update(update);
    if (update.type === 'text-delta') text += update.delta;
    else if (update.type === 'tool-approval-request') requests.push(update);
    else if (update.type === 'error') error = { code: update.code, message: update.message };
    else if (update.type === 'finish') reason = update.reason;
  }
  return { reason, text, error, requests };
}
