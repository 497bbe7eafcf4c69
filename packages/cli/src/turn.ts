import type {
  AgentResponseUpdate,
  ApprovalResponse,
  ChatMessage,
  FinishUpdate,
  SessionJournal,
  ToolApprovalRequestUpdate,
} from '@raf/core';
import type { AgentSession, ChatClientAgent, InputRequestHandler } from '@raf/framework';

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
  input: string | ChatMessage | undefined,
  options: {
    session: AgentSession;
    approvals?: ApprovalResponse[];
    signal: AbortSignal;
    journal?: SessionJournal | undefined;
    onInputRequest?: InputRequestHandler | undefined;
  },
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
    ...(options.journal && { journal: options.journal }),
    ...(options.onInputRequest && { onInputRequest: options.onInputRequest }),
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

/** The approval requests of a paused session (one implementation, in the framework). */
export { pendingApprovalRequests as pendingRequests } from '@raf/framework';
