import {
  type AgentResponseUpdate,
  type ApprovalResponse,
  type ChatMessage,
  FINISH_REASONS,
  type FinishReason,
  type ToolApprovalRequestUpdate,
} from '@raf/core';
import { sessionSchemaParts } from '@raf/core/internal';
import type { InputRequestHandler } from '@raf/framework';
import * as z from 'zod';

/** The DBOS workflow every durable run is (its id is the run id). */
export const RUN_WORKFLOW = 'raf.durableRun';
/** The queue recovered runs go on; workers consume it (`raf worker --queue`). */
export const DEFAULT_RUN_QUEUE = 'raf-runs';
/** The DBOS event a run keeps its state in (`paused` with the pending requests, `running`, …). */
export const STATUS_EVENT = 'raf.status';
/** The message topic of the answer to a run's `pause`-th approval. */
export const approvalTopic = (pause: number) => `raf.approval.${pause}`;

const json: z.ZodType<unknown> = z.json();

/** How any process rebuilds a run's agent: its name, and for a file its path, folder and overrides. */
export const agentRefSchema = z.object({
  name: z.string(),
  file: z.string().optional(),
  cwd: z.string().optional(),
  overrides: z.record(z.string(), json).optional(),
});
export type DurableAgentRef = z.infer<typeof agentRefSchema>;

/**
 * A durable run's input, recorded by DBOS with the workflow: text, or a user message with content
 * parts (images and files as base64, `raf run --attach`, the serving API's parts), parsed with the
 * sessions' own message schema.
 */
export const runSpecSchema = z.object({
  runId: z.string().min(1),
  sessionId: z.string().min(1),
  agent: agentRefSchema,
  input: z.union([z.string(), sessionSchemaParts().message]).optional(),
});
export type DurableRunSpec = Omit<z.infer<typeof runSpecSchema>, 'input'> & {
  input?: string | ChatMessage | undefined;
};

const approvalSchema = z.object({ callId: z.string(), approved: z.boolean(), reason: z.string().optional() });
export const approvalsSchema: z.ZodType<ApprovalResponse[]> = z.array(approvalSchema);

/** A workflow node paused for input (a `Question`): its id and what it asks. */
export const questionSchema = z.object({ nodeId: z.string(), prompt: z.string() });
export interface WorkflowQuestion {
  nodeId: string;
  prompt: string;
}

/** The `raf.status` event of a run. */
export const runStateSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('running') }),
  z.object({
    state: z.literal('paused'),
    pause: z.number().int().nonnegative(),
    requests: z.array(sessionSchemaParts().approvalRequest),
    // Only a workflow's pause has it (possibly empty): its answer is then a `workflowAnswerSchema`.
    questions: z.array(questionSchema).optional(),
    // A message the parked run ignored (not an answer): it still waits.
    warning: z.string().optional(),
  }),
  z.object({
    state: z.literal('ended'),
    reason: z.enum(FINISH_REASONS as [FinishReason, ...FinishReason[]]),
  }),
]);
export type PausedState = {
  state: 'paused';
  pause: number;
  requests: ToolApprovalRequestUpdate[];
  questions?: WorkflowQuestion[];
  /** What the parked run ignored (a message on its topic that is no answer): it still waits. */
  warning?: string;
};
export type RunState = { state: 'running' } | PausedState | { state: 'ended'; reason: FinishReason };

/** The answer to a workflow's pause: decisions for its approvals, texts for its questions by node. */
export const workflowAnswerSchema = z.object({
  approvals: approvalsSchema.optional(),
  answers: z.record(z.string(), z.string()).optional(),
});
export type WorkflowAnswer = z.infer<typeof workflowAnswerSchema>;

/**
 * Whether `answer` decides every call `paused` waits for and answers each of its questions: a
 * message that parses but does not (another pause's, a bad client's `{}`) is no answer to it.
 */
export function answersPause(paused: PausedState, answer: ApprovalResponse[] | WorkflowAnswer): boolean {
  const approvals = Array.isArray(answer) ? answer : (answer.approvals ?? []);
  const texts = Array.isArray(answer) ? {} : (answer.answers ?? {});
  return (
    paused.requests.every((r) => approvals.some((a) => a.callId === r.callId)) &&
    (paused.questions ?? []).every((q) => texts[q.nodeId] !== undefined)
  );
}

/** What the workflow returns. */
export const runOutcomeSchema = z.object({
  runId: z.string(),
  sessionId: z.string(),
  reason: z.string(),
  text: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export interface DurableRunOutcome {
  runId: string;
  sessionId: string;
  reason: FinishReason;
  text: string;
  error?: { code: string; message: string };
}

/** Told as a run goes on in this process (the updates are not replayed to a later reader). */
export interface RunListener {
  update(update: AgentResponseUpdate): void;
  paused?(state: PausedState): void;
  /**
   * The workflow body stopped in this process: it returned `outcome`, or threw `error` (cancelled,
   * or this process is shutting down: the run then goes on elsewhere).
   */
  stopped?(end: { outcome?: DurableRunOutcome; error?: unknown }): void;
  /**
   * Answers the questions tools ask while the run goes on in this process (an MCP server's
   * elicitation, `raf run --durable --answer`). The answer is part of the tool call's step: a
   * replay does not ask again; a call redone in a worker, which has no one to ask, is declined.
   */
  onInputRequest?: InputRequestHandler;
}
