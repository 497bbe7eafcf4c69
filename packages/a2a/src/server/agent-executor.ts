import { randomUUID } from 'node:crypto';
import type { Message, Part, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type {
  ApprovalResponse,
  FinishReason,
  JSONValue,
  ToolApprovalRequestUpdate,
  ToolResult,
} from '@raf/core';
import { getErrorMessage } from '@raf/core';
import { sessionSchemaParts } from '@raf/core/internal';
import { z } from 'zod';
import { textOfParts } from '../client/a2a-events.js';

/** One turn the executor asks its host for: a new task, or a paused one resumed with answers. */
export interface A2ATurn {
  /** The A2A task: one RAF run (a paused run keeps its task across the answer). */
  taskId: string;
  /** The A2A context: the RAF session the turns share. */
  contextId: string;
  /** The user's text (empty when the message only answers approvals). */
  text: string;
  /** Answers to the approvals the task asked for (`input-required`). */
  approvals?: ApprovalResponse[];
  /** The caller, as the transport named it (the tenant). */
  user?: string;
  signal: AbortSignal;
}

/**
 * The events of a run as `raf run --json` prints them (SPEC §11.1), the ones the executor reads:
 * what `@raf/server` stores for every served run, whichever protocol started it.
 */
export type A2ARunEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'tool-call'; callId: string; name: string; arguments: JSONValue }
  | { type: 'tool-result'; callId: string; name: string; result: ToolResult }
  | ToolApprovalRequestUpdate
  | { type: 'error'; code: string; message: string }
  | { type: 'finish'; reason: FinishReason }
  | { type: 'reasoning-delta' | 'tool-progress' | 'warning' };

/** Runs RAF turns for the executor: `@raf/server` starts them in its run registry. */
export type A2ATurnRunner = (turn: A2ATurn) => AsyncIterable<A2ARunEvent>;

/**
 * How a client answers approvals: a data part `{"approvals": [{"callId", "approved", "reason"?}]}`
 * in a message to the same task; or the text `approve`/`yes` (all of them) or `deny`/`no`.
 */
const approvalsPart = z.object({
  approvals: z.array(
    z.object({ callId: z.string().min(1), approved: z.boolean(), reason: z.string().optional() }),
  ),
});

/**
 * The requests a stored `input-required` task waits on, from its status message's data part (as
 * `execute` wrote it): a task paused by another replica, or by this process before a restart.
 * Parsed: the task comes back from the store.
 */
function storedRequests(task: RequestContext['task']): ToolApprovalRequestUpdate[] {
  if (task?.status?.state !== STATE.inputRequired) return [];
  const request = sessionSchemaParts().approvalRequest;
  for (const part of task.status.message?.parts ?? []) {
    if (part.content?.$case !== 'data') continue;
    const parsed = z.object({ approvalRequests: z.array(request) }).safeParse(part.content.value);
    if (parsed.success) return parsed.data.approvalRequests;
  }
  return [];
}

/** Ended tasks remembered for answers that race their end (see `execute`). */
const MAX_SETTLED = 1000;

const STATE = {
  submitted: 1,
  working: 2,
  completed: 3,
  failed: 4,
  canceled: 5,
  inputRequired: 6,
} as const satisfies Record<string, TaskState>;

function textPart(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}
function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}
function agentMessage(parts: Part[], taskId: string, contextId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: 2, // ROLE_AGENT
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The answers a message carries for the pending requests, if any. */
export function approvalsOf(
  message: Message,
  pending: readonly ToolApprovalRequestUpdate[],
): ApprovalResponse[] | undefined {
  for (const part of message.parts) {
    if (part.content?.$case !== 'data') continue;
    const parsed = approvalsPart.safeParse(part.content.value);
    if (parsed.success) return parsed.data.approvals;
  }
  if (pending.length === 0) return undefined;
  const word = textOfParts(message.parts).trim().toLowerCase();
  const approved = ['approve', 'approved', 'yes', 'y'].includes(word)
    ? true
    : ['deny', 'denied', 'no', 'n'].includes(word)
      ? false
      : undefined;
  return approved === undefined ? undefined : pending.map((r) => ({ callId: r.callId, approved }));
}

/**
 * A RAF agent as an A2A `AgentExecutor` (`@a2a-js/sdk`): a message starts a run (its task is the
 * run, its context the session); the answer streams as one text artifact; tool calls and results
 * are `working` status messages with a data part (the `raf run --json` lines); an approval ends
 * the turn `input-required` with the requests in a data part, and the next message to that task
 * answers them (`approvalsOf`); a cancel aborts the run.
 */
export class RafAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, AbortController>();
  /** Resolves when the task's running turn has ended (see the second answer in `execute`). */
  private readonly turnEnded = new Map<string, Promise<void>>();
  /** The requests each paused task waits on. */
  private readonly pending = new Map<string, ToolApprovalRequestUpdate[]>();

  /** How the latest tasks ended (at most `MAX_SETTLED`, oldest dropped first). */
  private readonly ended = new Map<string, { state: TaskState; parts?: Part[] }>();

  /**
   * `cancelPaused`: ends the run of a task paused for approvals (`tasks/cancel` of an
   * `input-required` task: no turn runs to abort, yet the run must not stay paused for ever).
   */
  constructor(
    private readonly runTurn: A2ATurnRunner,
    private readonly cancelPaused?: (taskId: string) => Promise<void>,
  ) {}

  private settle(taskId: string, end: { state: TaskState; parts?: Part[] }): void {
    this.ended.set(taskId, end);
    if (this.ended.size > MAX_SETTLED) this.ended.delete(this.ended.keys().next().value!);
  }

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = context;
    const message = context.userMessage;
    // A second answer sent at once as the one that resumed the task: the SDK gives both the
    // same event bus, so this one publishes nothing and returns only once the first turn has
    // ended (the SDK closes the bus when an execute returns in a working state): both requests
    // then answer with the task's end.
    const ending = this.turnEnded.get(taskId);
    if (context.task && ending) {
      await ending;
      return;
    }
    if (context.task?.status?.state === STATE.working && !this.ended.has(taskId)) {
      // Its turn runs on another replica (this one runs none): no second turn, and nothing saved
      // over that replica's states; the answer is a message, which the SDK does not store.
      bus.publish({
        kind: 'message',
        data: agentMessage(
          [textPart('This task is running (on another replica); read its end with tasks/get.')],
          taskId,
          contextId,
        ),
      });
      bus.finished();
      return;
    }
    const status = (state: TaskState, parts?: Part[]) =>
      bus.publish({
        kind: 'statusUpdate',
        data: {
          taskId,
          contextId,
          status: {
            state,
            message: parts ? agentMessage(parts, taskId, contextId) : undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        },
      });
    // Every stream opens with the task (the SDK refuses a status update before it), new or continued.
    bus.publish({
      kind: 'task',
      data: context.task ?? {
        id: taskId,
        contextId,
        status: { state: STATE.submitted, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [message],
        metadata: undefined,
      },
    });
    const waiting = this.pending.get(taskId) ?? storedRequests(context.task);
    const approvals = waiting.length > 0 ? approvalsOf(message, waiting) : undefined;
    if (waiting.length > 0 && !approvals) {
      status(STATE.inputRequired, [
        textPart(
          'This task waits for approvals: answer with approve, deny, or a data part {"approvals": […]}.',
        ),
        dataPart({ approvalRequests: waiting }),
      ]);
      bus.finished();
      return;
    }
    // A second answer sent at once as the one that resumed the task (the SDK read the task
    // before that one ended): not a new turn, which would fail the task the first one runs or
    // ran. Running: it is said so; ended: its end is said again (its state stays).
    const settled = this.ended.get(taskId);
    if (context.task && waiting.length === 0 && (this.running.has(taskId) || settled)) {
      if (settled) status(settled.state, settled.parts);
      else status(STATE.working, [textPart('This task is running; its approvals were answered already.')]);
      bus.finished();
      return;
    }
    this.pending.delete(taskId);
    const controller = new AbortController();
    this.running.set(taskId, controller);
    let endTurn!: () => void;
    this.turnEnded.set(taskId, new Promise<void>((resolve) => (endTurn = resolve)));
    const artifactId = `${taskId}-answer`;
    let chunks = 0;
    const requests: ToolApprovalRequestUpdate[] = [];
    let ended: { state: TaskState; parts?: Part[] } = { state: STATE.completed };
    let events = 0;
    status(STATE.working);
    try {
      const turn = this.runTurn({
        taskId,
        contextId,
        text: approvals ? '' : textOfParts(message.parts),
        ...(approvals && { approvals }),
        ...(context.context.user?.isAuthenticated && { user: context.context.user.userName }),
        signal: controller.signal,
      });
      for await (const update of turn) {
        events++;
        if (update.type === 'text-delta') {
          bus.publish({
            kind: 'artifactUpdate',
            data: {
              taskId,
              contextId,
              artifact: {
                artifactId,
                name: 'answer',
                description: '',
                parts: [textPart(update.delta)],
                metadata: undefined,
                extensions: [],
              },
              append: chunks++ > 0,
              lastChunk: false,
              metadata: undefined,
            },
          });
          continue;
        }
        if (update.type === 'tool-call' || update.type === 'tool-result')
          status(STATE.working, [dataPart(update)]);
        else if (update.type === 'tool-approval-request') requests.push(update);
        else if (update.type === 'error') ended = { state: STATE.failed, parts: [textPart(update.message)] };
        else if (update.type === 'finish') {
          if (update.reason === 'awaitingApproval') {
            this.pending.set(taskId, requests);
            const names = requests.map((r) => r.name).join(', ');
            ended = {
              state: STATE.inputRequired,
              parts: [textPart(`Approval needed: ${names}`), dataPart({ approvalRequests: requests })],
            };
          } else if (update.reason === 'cancelled') ended = { state: STATE.canceled };
          else if (ended.state !== STATE.failed && !['stop', 'length', 'maxRounds'].includes(update.reason))
            ended = { state: STATE.failed, parts: [textPart(`the run ended: ${update.reason}`)] };
        }
      }
    } catch (error) {
      if (approvals && events === 0 && !controller.signal.aborted) {
        // The answers were refused before the run went on (a call id it does not wait on, a
        // call answered twice): the run still waits, and so does the task, for a right answer.
        this.pending.set(taskId, waiting);
        ended = {
          state: STATE.inputRequired,
          parts: [textPart(getErrorMessage(error)), dataPart({ approvalRequests: waiting })],
        };
      } else
        ended = controller.signal.aborted
          ? { state: STATE.canceled }
          : { state: STATE.failed, parts: [textPart(getErrorMessage(error))] };
    } finally {
      this.running.delete(taskId);
    }
    if (ended.state !== STATE.inputRequired) this.settle(taskId, ended);
    status(ended.state, ended.parts);
    bus.finished();
    this.turnEnded.delete(taskId);
    endTurn();
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const controller = this.running.get(taskId);
    if (controller) {
      // The running `execute` publishes `canceled` once the run has stopped.
      controller.abort(new Error('cancelled by the A2A client'));
      return;
    }
    if (this.pending.has(taskId)) await this.cancelPaused?.(taskId);
    this.pending.delete(taskId);
    this.settle(taskId, { state: STATE.canceled });
    bus.publish({
      kind: 'statusUpdate',
      data: {
        taskId,
        contextId: '',
        status: { state: STATE.canceled, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      },
    });
    bus.finished();
  };
}
