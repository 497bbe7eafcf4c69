import { randomUUID } from 'node:crypto';
import type { JSONValue, SessionSnapshot } from '@raf/core';
import { parseRunState, pausedRunState, type RunState } from '../run/run-state.js';
import { AgentSession } from '../sessions/agent-session.js';
import { sessionSchemaParts } from '../sessions/session-snapshot-schema.js';

/**
 * The sub-agent's run paused in `session`, as the `RunState` a delegation keeps (in the root
 * session) and sends (to a worker). Parsed into its plain-JSON shape: what is kept is what reads
 * back.
 */
export function delegatedRunState(session: AgentSession): RunState {
  return parseRunState(pausedRunState(session.toJSON()), "the sub-agent's paused run");
}

/**
 * The session a delegation's `RunState` resumes in: its history, its slots as the session's
 * state, its paused batch. The sub-agent's session lives only as long as one delegation, so a
 * new id is as good as the old one.
 */
export function delegatedSession(state: RunState): AgentSession {
  const now = new Date().toISOString();
  const snapshot: SessionSnapshot = {
    version: 1,
    id: randomUUID(),
    messages: state.messages,
    state: state.slots,
    metadata: {},
    createdAt: now,
    updatedAt: now,
  };
  if (state.pending) snapshot.pendingApproval = state.pending;
  return AgentSession.fromJSON(snapshot);
}

/** A run state as the JSON a message carries (checked as JSON, not cast). */
export function runStateJSON(state: RunState): JSONValue {
  return sessionSchemaParts().json.parse(state);
}
