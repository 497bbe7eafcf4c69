import type {
  ApprovalResponse,
  ChatClientRunOptions,
  ChatMessage,
  ITool,
  PendingApprovalBatch,
} from '@raf/core';
import type { ApprovalDecisions } from '../approval/approval-batch.js';
import type { InterruptedTurn } from '../run/interrupted-turn.js';
import type { CallRecorder } from '../run/turn-recorder.js';
import type { RunTrace } from '../telemetry/run-trace.js';
import type { InputRequestHandler } from './input-requests.js';

/**
 * What `ChatClientAgent` hands the tool loop (`FunctionInvokingChatClient`): the request data of
 * `ChatClientRunOptions` plus the loop's own state. Decorators between them pass it on untouched;
 * a model client never reads it.
 */
export interface ToolLoopRunOptions extends ChatClientRunOptions {
  /** Live tools injected by context providers for this run (the loop executes them). */
  providerTools?: readonly ITool[];
  /** The providers' tools as they are now, read before each later round (a list that changed mid-run). */
  currentProviderTools?: () => Promise<readonly ITool[]>;
  /** Answers to a paused batch of gated calls. */
  approvals?: readonly ApprovalResponse[];
  /** `approvals` already checked against `pendingApproval` (the agent did): not checked again. */
  decisions?: ApprovalDecisions;
  /** The batch a previous run paused on; with `approvals`, the loop resumes it first. */
  pendingApproval?: PendingApprovalBatch;
  /** The turn the session stopped in (a crash); without `pendingApproval`, the loop continues it first. */
  interrupted?: InterruptedTurn;
  /**
   * Told when calls start and as each result completes, and flushed before each model call: the
   * agent journals the turn through it (SPEC §14.1).
   */
  recorder?: CallRecorder & { flush(): Promise<void> | void };
  /**
   * Called with the messages each model turn produced, in order: the assistant message (with its
   * tool calls) before they run, then the tool results. The agent persists them to history.
   */
  onTurnMessages?: (messages: ChatMessage[]) => void;
  /** Called when the loop pauses a batch for approval (the agent stores it in the session). */
  onApprovalPending?: (batch: PendingApprovalBatch) => void;
  /** The caller's run context, handed to every tool as `ctx.context`. */
  context?: unknown;
  /** Answers the questions tools put to the user while they run (`ctx.requestInput`). */
  onInputRequest?: InputRequestHandler;
  /** The session's id, handed to every tool as `ctx.sessionId`. */
  sessionId?: string;
  /** The agent's trace (`null`: the agent found no recording tracer; the loop traces nothing). */
  trace?: RunTrace | null;
  /** Changes this run's tools (static and injected alike): governance, a worker's projection. */
  toolView?: ToolView;
}

/**
 * What one run offers the model, from every tool the agent has: a view may drop tools, change
 * their descriptions or stand in for them (a worker's proxy). Tools not returned cannot be called.
 */
export type ToolView = (tools: readonly ITool[]) => readonly ITool[];
