import {
  type ApprovalResponse,
  type ChatMessage,
  type JSONValue,
  type PendingApprovalBatch,
  SessionError,
  type SessionSnapshot,
  type ToolCall,
  type Usage,
} from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { describeIssues, sessionSchemaParts } from '../sessions/session-snapshot-schema.js';

/** The version of the `RunState` layout; a state of another version is refused, not guessed at. */
export const RUN_STATE_VERSION = 1;

/**
 * One run as data: what the model receives next, where the turn is, and what it waits for. The
 * runner advances it one `step` at a time; it is plain JSON, so a paused run can be kept (a
 * session, a worker's message, a workflow node) and read back with `parseRunState`.
 */
export interface RunState {
  version: typeof RUN_STATE_VERSION;
  /** The conversation the model receives next (instructions and context first, then the turn). */
  messages: ChatMessage[];
  /** Tool rounds done in this turn (a resumed turn goes on counting from the paused round). */
  round: number;
  /** The batch the run is paused on: gated calls waiting for a human, calls that suspended. */
  pending?: PendingApprovalBatch;
  /**
   * The answers to `pending`, checked against it when they entered the state (once): the next
   * step runs the batch with them before the model is called again.
   */
  approvals?: ApprovalResponse[];
  /** A turn a crash interrupted: its calls without a result; `inDoubt` the ones that had started. */
  interrupted?: { calls: ToolCall[]; inDoubt: string[] };
  /** The run's token usage so far. */
  usage?: Usage;
  /** Typed state slots by key (`defineStateSlot`); each is read back through its own schema. */
  slots: Record<string, JSONValue>;
}

/** A named piece of a run's state with the schema it is read back through. */
export interface StateSlot<T extends JSONValue> {
  readonly key: string;
  readonly schema: z.ZodType<T>;
}

/** Declares a state slot: `key` names it in the state, `schema` checks it whenever it is read. */
export function defineStateSlot<T extends JSONValue>(key: string, schema: z.ZodType<T>): StateSlot<T> {
  return { key, schema };
}

/** The slot's value parsed with its schema (`undefined` when unset); a value that fails names the slot. */
export function readSlot<T extends JSONValue>(
  state: Pick<RunState, 'slots'>,
  slot: StateSlot<T>,
): T | undefined {
  const value = state.slots[slot.key];
  if (value === undefined) return undefined;
  const parsed = slot.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new SessionError(`state slot '${slot.key}' holds an invalid value: ${describeIssues(parsed.error)}`);
}

/** Sets (or, with `undefined`, removes) a slot; the value is checked before it is kept. */
export function writeSlot<T extends JSONValue>(
  state: Pick<RunState, 'slots'>,
  slot: StateSlot<T>,
  value: T | undefined,
): void {
  if (value === undefined) {
    delete state.slots[slot.key];
    return;
  }
  const parsed = slot.schema.safeParse(value);
  if (!parsed.success) {
    throw new SessionError(`state slot '${slot.key}' refused a value: ${describeIssues(parsed.error)}`);
  }
  state.slots[slot.key] = parsed.data;
}

/** A fresh run over `messages`. */
export function newRunState(messages: ChatMessage[]): RunState {
  return { version: RUN_STATE_VERSION, messages, round: 0, slots: {} };
}

const runStateSchema = onFirstUse(() => {
  const { json, message, toolCall, pendingApproval, usage } = sessionSchemaParts();
  return z.object({
    version: z.literal(RUN_STATE_VERSION),
    messages: z.array(message),
    round: z.number().int().nonnegative(),
    pending: pendingApproval.optional(),
    approvals: z
      .array(z.object({ callId: z.string(), approved: z.boolean(), reason: z.string().optional() }))
      .optional(),
    interrupted: z.object({ calls: z.array(toolCall), inDoubt: z.array(z.string()) }).optional(),
    usage: usage.optional(),
    slots: z.record(z.string(), json),
  });
});

/** Reads a run state back (a file, a database, another process); `source` names it in errors. */
export function parseRunState(input: unknown, source = 'run state'): RunState {
  const parsed = runStateSchema().safeParse(input);
  if (parsed.success) return parsed.data;
  throw new SessionError(`${source} is not a valid run state: ${describeIssues(parsed.error)}`);
}

/**
 * The run a saved session is paused in: its history, the paused batch and its round, and its
 * state as slots. The snapshot was parsed when it was read (`AgentSession.fromJSON`).
 */
export function pausedRunState(snapshot: SessionSnapshot): RunState {
  const state = newRunState(snapshot.messages);
  state.slots = snapshot.state;
  if (snapshot.pendingApproval) {
    state.pending = snapshot.pendingApproval;
    state.round = snapshot.pendingApproval.round;
  }
  return state;
}
