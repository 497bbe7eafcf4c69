import { resolve } from 'node:path';
import type {
  AgentResponseUpdate,
  ApprovalResponse,
  FinishUpdate,
  PendingApprovalBatch,
  ToolApprovalRequestUpdate,
} from '@raf/core';
import {
  type AgentSession,
  type ChatClientAgent,
  FileSessionStore,
  AgentSession as Session,
} from '@raf/framework';
import { refuseWrongKind } from './path-kind.js';

export interface TurnOutcome {
  finish: FinishUpdate;
  requests: ToolApprovalRequestUpdate[];
  failed: boolean;
  /** The failure was the agent's configuration (`RAF_CONFIG`, e.g. no API key): exit 2, not 4. */
  configError: boolean;
}

/** Runs one turn (or one resume), handing every update to `onUpdate`. */
export async function runTurn(
  agent: ChatClientAgent,
  input: string | undefined,
  options: { session: AgentSession; approvals?: ApprovalResponse[]; signal: AbortSignal },
  onUpdate: (update: AgentResponseUpdate) => void,
): Promise<TurnOutcome> {
  const requests: ToolApprovalRequestUpdate[] = [];
  let finish: FinishUpdate = { type: 'finish', reason: 'other' };
  let failed = false;
  let configError = false;
  const stream = agent.run(input, {
    session: options.session,
    signal: options.signal,
    ...(options.approvals && { approvals: options.approvals }),
  });
  for await (const update of stream) {
    if (update.type === 'tool-approval-request') requests.push(update);
    if (update.type === 'error') {
      failed = true;
      configError ||= update.code === 'RAF_CONFIG';
    }
    if (update.type === 'finish') finish = update;
    onUpdate(update);
  }
  return { finish, requests, failed, configError };
}

/** The approval requests of a paused session, rebuilt from its pending batch (a sub-agent's as it asked them). */
export function pendingRequests(batch: PendingApprovalBatch): ToolApprovalRequestUpdate[] {
  const nested = Object.values(batch.suspended ?? {}).flatMap((s) => s.requests);
  const own = batch.toolCalls
    .filter((call) => batch.gatedCallIds.includes(call.id))
    .map((call) => {
      let args: unknown = call.arguments;
      try {
        args = JSON.parse(call.arguments);
      } catch {}
      const target = batch.resolvedTargets?.[call.id];
      return {
        type: 'tool-approval-request' as const,
        callId: call.id,
        name: call.name,
        arguments: args as ToolApprovalRequestUpdate['arguments'],
        description: call.name,
        ...(target !== undefined && { resolvedTarget: target }),
      };
    });
  return [...own, ...nested];
}

/** Sessions kept as `<dir>/<id>.json`; `--session ID` resumes one, or starts it under that id. */
export async function openSession(dir: string, cwd: string, id: string | undefined) {
  // Found before the turn runs, not when its session cannot be saved after it.
  await refuseWrongKind('--sessions-dir', dir, cwd, 'folder');
  const store = new FileSessionStore(resolve(cwd, dir));
  // An id the store refuses (`""`, `../x`) is refused here, also before the turn.
  const existing = id !== undefined ? await store.load(id) : undefined;
  const session = existing ? Session.fromJSON(existing) : new Session(id ?? crypto.randomUUID());
  return { store, session, resumed: existing !== undefined };
}
