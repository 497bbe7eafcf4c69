import type { ApprovalResponse, JSONValue, ToolApprovalRequestUpdate } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { parseRunState, pausedRunState, type RunState } from '../run/run-state.js';
import { sessionSchemaParts, sessionSnapshotSchema } from '../sessions/session-snapshot-schema.js';

/**
 * What a paused delegation keeps (in the root session): the sub-agent's paused run (`RunState`)
 * and what it asked (its own requests, with its own call ids). The schema's type: plain JSON by
 * construction.
 */
export type PausedDelegation = Omit<z.output<ReturnType<typeof schemas>['paused']>, 'state'> & {
  state: RunState;
};

/** The sub-agent's requests as the root shows them: ids made unique in the root session, `agentPath` set. */
export function raisedRequests(
  agent: string,
  callId: string,
  requests: readonly ToolApprovalRequestUpdate[],
): ToolApprovalRequestUpdate[] {
  return requests.map((request) => ({
    ...request,
    callId: `${callId}/${request.callId}`,
    agentPath: [agent, ...(request.agentPath ?? [])],
  }));
}

/** The root's answers as the sub-agent reads them: its own call ids, only answers meant for it. */
export function answersFor(callId: string, approvals: readonly ApprovalResponse[]): ApprovalResponse[] {
  const prefix = `${callId}/`;
  return approvals
    .filter((a) => a.callId.startsWith(prefix))
    .map((a) => ({ ...a, callId: a.callId.slice(prefix.length) }));
}

/**
 * The state a delegation tool keeps while its sub-agent waits (`ToolSuspension`), read back from a
 * session (a file, a database, another process): one task, or the tasks of `delegate_parallel`.
 */
export type TaskState =
  | { agent: string; task: string; ok: true; answer: string }
  | { agent: string; task: string; ok: false; error: string }
  | { agent: string; task: string; paused: JSONValue; requestIds: string[] };

// Built on first use (a paused delegation read back): importing the framework builds none.
const schemas = onFirstUse(() => {
  const { json, approvalRequest } = sessionSchemaParts();
  const paused = z.object({
    agent: z.string(),
    /** The sub-agent's paused run, read with `parseRunState`. */
    state: json,
    requests: z.array(approvalRequest),
  });
  // What a paused delegation kept before it kept a RunState: the sub-agent's session snapshot.
  const legacy = z.object({
    agent: z.string(),
    session: sessionSnapshotSchema(),
    requests: z.array(approvalRequest),
  });
  const named = { agent: z.string(), task: z.string() };
  const task = z.union([
    z.object({ ...named, paused: json, requestIds: z.array(z.string()) }),
    z.object({ ...named, ok: z.literal(true), answer: z.string() }),
    z.object({ ...named, ok: z.literal(false), error: z.string() }),
  ]);
  return { json, paused, legacy, task, tasks: z.object({ tasks: z.array(task) }) };
});

function invalid(what: string, error: z.ZodError): Error {
  const detail = error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(state)'}: ${issue.message}`)
    .join('; ');
  return new Error(`${what} is not one a paused delegation left (${detail})`);
}

/** Reads the state a paused delegation saved; anything else is refused (a session edited by hand). */
export function pausedDelegation(state: JSONValue, agent: string): PausedDelegation {
  const where = `the saved state of this delegation to ${agent}`;
  let paused: PausedDelegation;
  if (isJsonRecord(state) && 'session' in state) {
    const older = schemas().legacy.safeParse(state);
    if (!older.success) throw invalid(where, older.error);
    const { session, ...rest } = older.data;
    paused = { ...rest, state: pausedRunState(session) };
  } else {
    const parsed = schemas().paused.safeParse(state);
    if (!parsed.success) throw invalid(where, parsed.error);
    paused = { ...parsed.data, state: parseRunState(parsed.data.state, `${where} (its run)`) };
  }
  if (paused.agent !== agent)
    throw new Error(`the saved state of this delegation is for ${paused.agent}, not ${agent}`);
  return paused;
}

/** A paused delegation as the JSON its outcome carries (checked as JSON, not cast). */
export function pausedJSON(paused: PausedDelegation): JSONValue {
  return schemas().json.parse(paused);
}

function isJsonRecord(value: JSONValue): value is { [key: string]: JSONValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The saved state of a `delegate_task` call (`undefined`: it starts afresh). */
export function savedTask(state: JSONValue | undefined): TaskState | undefined {
  if (state === undefined) return undefined;
  const parsed = schemas().task.safeParse(state);
  if (!parsed.success) throw invalid('the saved state of this delegate_task call', parsed.error);
  return parsed.data;
}

/** The saved tasks of a `delegate_parallel` call (`undefined`: it starts afresh). */
export function savedTasks(state: JSONValue | undefined): TaskState[] | undefined {
  if (state === undefined) return undefined;
  const parsed = schemas().tasks.safeParse(state);
  if (!parsed.success) throw invalid('the saved state of this delegate_parallel call', parsed.error);
  return parsed.data.tasks;
}

/** A task state as the JSON a suspension keeps (every variant is plain JSON). */
export function taskJSON(state: TaskState | { tasks: TaskState[] }): JSONValue {
  return state;
}

/**
 * Which of the sub-agent's own requests the human approved, with the target they were shown: a
 * proxied call that claims an approval is believed only for these.
 */
export function approvedTargets(
  paused: PausedDelegation,
  answers: readonly ApprovalResponse[],
): Map<string, string | undefined> {
  const approved = new Map<string, string | undefined>();
  for (const answer of answers) {
    if (!answer.approved) continue;
    const request = paused.requests.find((r) => r.callId === answer.callId);
    if (request) approved.set(request.callId, request.resolvedTarget);
  }
  return approved;
}
