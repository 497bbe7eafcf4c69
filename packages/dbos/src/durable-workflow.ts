import type {
  ApprovalResponse,
  ChatMessage,
  FinishReason,
  JSONValue,
  ToolApprovalRequestUpdate,
} from '@raf/core';
import { sessionSchemaParts } from '@raf/core/internal';
import type { PostgresStore } from '@raf/postgres';
import * as z from 'zod';
import type { Dbos } from './load-sdk.js';
import { park } from './park.js';
import {
  questionSchema,
  type RunListener,
  type RunState,
  STATUS_EVENT,
  type WorkflowAnswer,
  type WorkflowQuestion,
  workflowAnswerSchema,
} from './run-spec.js';

type CheckpointStore = PostgresStore['checkpoints'];

/** What a paused node waits for (`@raf/workflow`'s `HaltRequest`). */
type HaltRequest =
  | { kind: 'input'; prompt: string }
  | { kind: 'approval'; requests: ToolApprovalRequestUpdate[] };

/** How a workflow run ended (`@raf/workflow`'s `WorkflowResult`, the fields a durable run reads). */
export interface DurableWorkflowResult {
  status: 'completed' | 'halted' | 'failed' | 'cancelled';
  outputs: readonly { nodeId: string; value: JSONValue }[];
  halted: readonly { nodeId: string; request: HaltRequest }[];
  /** The last checkpoint saved: for a halted run, the one its answer resumes. */
  checkpointId?: string;
  error?: { code: string; message: string };
}

interface WorkflowEventLike {
  type: string;
  nodeId?: string;
  value?: JSONValue;
}

/** What a durable run needs of a workflow: `@raf/workflow`'s `Workflow`, named by shape. */
export interface DurableWorkflow {
  readonly name: string;
  run(
    input: JSONValue,
    options: {
      runId: string;
      checkpoints: CheckpointStore;
      onEvent?: (event: WorkflowEventLike) => void;
    },
  ): { readonly result: Promise<DurableWorkflowResult> };
  resume(options: {
    runId: string;
    checkpoints: CheckpointStore;
    onEvent?: (event: WorkflowEventLike) => void;
    answers?: Record<string, JSONValue>;
    approvals?: readonly ApprovalResponse[];
  }): { readonly result: Promise<DurableWorkflowResult> };
}

/** A workflow as an agent (`WorkflowAgent`, `workflow.asAgent()`, a `kind: workflow` file). */
export interface DurableWorkflowAgent {
  readonly name: string;
  readonly workflow: DurableWorkflow;
}

/** Whether `agent` is a workflow (it has one) rather than a chat agent. */
export function isWorkflowAgent(agent: object): agent is DurableWorkflowAgent {
  const workflow = (agent as { workflow?: unknown }).workflow;
  return (
    typeof workflow === 'object' &&
    workflow !== null &&
    typeof (workflow as { resume?: unknown }).resume === 'function'
  );
}

/** A workflow's input is text: content parts (images, files) would be lost on the way. */
export const WORKFLOW_TEXT_ONLY = {
  code: 'RAF_WORKFLOW_INPUT',
  message: 'a workflow takes text input; content parts (images, files) go to chat agents',
} as const;

/** A paused call as the segment recorded it (the loop's own update, read back whole). */
const approvalRequestSchema = sessionSchemaParts().approvalRequest;

/**
 * Where one segment of a workflow run stopped (the DBOS step `workflow:<n>`, recorded: a recovered
 * run replays it rather than running the graph again). `text` is the answer so far (every output).
 */
const segmentSchema = z.object({
  status: z.enum(['completed', 'halted', 'failed', 'cancelled']),
  text: z.string(),
  checkpointId: z.string().optional(),
  requests: z.array(approvalRequestSchema),
  questions: z.array(questionSchema),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
type Segment = z.infer<typeof segmentSchema>;

/** The answer a segment resumes with: the halt it answers (its checkpoint) and the answer sent. */
interface Answered {
  checkpointId: string;
  answer: WorkflowAnswer;
}

export interface WorkflowHost {
  dbos: Dbos;
  checkpoints: CheckpointStore;
  listener: () => RunListener | undefined;
}

export type WorkflowEnding = {
  reason: FinishReason;
  text: string;
  error?: { code: string; message: string };
};

/**
 * A durable workflow run: its graph in segments, each the DBOS step `workflow:<n>`, parked
 * between them when the graph halts (a question, an approval) exactly as an agent's run parks
 * between turns (`park`). Inside a segment the graph's progress is its checkpoints: the engine
 * checkpoints after every superstep and, inside a fan-out, after each node that finishes while its
 * siblings run, so a segment a worker runs again (its process died) goes on from the newest
 * checkpoint and a node that finished is not run again; a node that was running runs again.
 * A recovered run replays the finished segments and pauses from the record (their answers
 * included), then runs the first unfinished one.
 */
export async function runDurableWorkflow(
  host: WorkflowHost,
  workflow: DurableWorkflow,
  { runId, input = '' }: { runId: string; input?: string | ChatMessage | undefined },
): Promise<WorkflowEnding> {
  // Refused before the run starts where it can be (`raf run --attach`); code may still send one.
  if (typeof input !== 'string') return { reason: 'other', text: '', error: WORKFLOW_TEXT_ONLY };
  const { dbos } = host;
  let answered: Answered | undefined;
  for (let pause = 0; ; pause++) {
    const recorded = await dbos.runStep(() => runSegment(workflow, host, { runId, input }, answered), {
      name: `workflow:${pause}`,
    });
    const segment = segmentSchema.parse(recorded);
    if (segment.status !== 'halted' || segment.checkpointId === undefined) {
      const ended = ending(segment);
      await dbos.setEvent(STATUS_EVENT, { state: 'ended', reason: ended.reason } satisfies RunState);
      return ended;
    }
    const answer = await park(
      dbos,
      {
        state: 'paused',
        pause,
        requests: segment.requests,
        questions: segment.questions,
      },
      workflowAnswerSchema,
      host.listener(),
    );
    answered = { checkpointId: segment.checkpointId, answer };
  }
}

/**
 * Runs the graph from the run's newest checkpoint until it ends or halts. The newest checkpoint
 * being the halt `answered` answers: resumed with that answer. Being another halt: this segment
 * already halted there (its process died before the step was recorded), so it stops there again
 * without running anything. No checkpoint: the run starts.
 */
async function runSegment(
  workflow: DurableWorkflow,
  host: WorkflowHost,
  { runId, input }: { runId: string; input: string },
  answered: Answered | undefined,
): Promise<Segment> {
  const { checkpoints } = host;
  const latest = await checkpoints.load(runId);
  // Each output is a line of the answer, after those of the segments (or a crashed execution) before.
  let lines = latest?.state.outputs.length ?? 0;
  const onEvent = (event: WorkflowEventLike) => {
    if (event.type !== 'output' || event.value === undefined) return;
    host.listener()?.update({ type: 'text-delta', delta: `${lines > 0 ? '\n' : ''}${lineOf(event.value)}` });
    lines++;
  };
  if (latest?.state.status === 'halted' && latest.id !== answered?.checkpointId)
    return segmentOf({
      status: 'halted',
      outputs: latest.state.outputs,
      halted: latest.state.halted,
      checkpointId: latest.id,
    });
  const run = !latest
    ? workflow.run(input, { runId, checkpoints, onEvent })
    : workflow.resume({
        runId,
        checkpoints,
        onEvent,
        ...(latest.state.status === 'halted' && answered && resumeWith(answered.answer)),
      });
  return segmentOf(await run.result);
}

function resumeWith(answer: WorkflowAnswer): {
  answers?: Record<string, JSONValue>;
  approvals?: ApprovalResponse[];
} {
  return {
    ...(answer.answers && { answers: answer.answers }),
    ...(answer.approvals && { approvals: answer.approvals }),
  };
}

function lineOf(value: JSONValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function segmentOf(result: DurableWorkflowResult): Segment {
  const requests: ToolApprovalRequestUpdate[] = [];
  const questions: WorkflowQuestion[] = [];
  for (const { nodeId, request } of result.halted)
    if (request.kind === 'input') questions.push({ nodeId, prompt: request.prompt });
    else requests.push(...request.requests);
  return {
    status: result.status,
    // The answer is every output of the run, also those a crashed execution produced before.
    text: result.outputs.map((o) => lineOf(o.value)).join('\n'),
    ...(result.checkpointId !== undefined && { checkpointId: result.checkpointId }),
    requests,
    questions,
    ...(result.error && { error: { code: result.error.code, message: result.error.message } }),
  };
}

function ending(segment: Segment): WorkflowEnding {
  const { text } = segment;
  if (segment.status === 'completed') return { reason: 'stop', text };
  if (segment.status === 'cancelled') return { reason: 'cancelled', text };
  if (segment.status === 'halted')
    return {
      reason: 'other',
      text,
      error: {
        code: 'RAF_WORKFLOW_HALTED',
        message: 'the workflow paused, but saved no checkpoint to resume',
      },
    };
  return {
    reason: 'other',
    text,
    error: segment.error ?? { code: 'RAF_WORKFLOW', message: 'the workflow failed' },
  };
}
