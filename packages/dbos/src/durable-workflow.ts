import type { AgentResponseUpdate, ChatMessage, FinishReason, JSONValue } from '@raf/core';
import type { PostgresStore } from '@raf/postgres';

type CheckpointStore = PostgresStore['checkpoints'];

/** How a workflow run ended (`@raf/workflow`'s `WorkflowResult`, the fields a durable run reads). */
export interface DurableWorkflowResult {
  status: 'completed' | 'halted' | 'failed' | 'cancelled';
  outputs: readonly { nodeId: string; value: JSONValue }[];
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

/**
 * One execution of a durable workflow run (the first, or a recovery in a worker): it goes on from
 * the run's newest checkpoint in the store. The engine checkpoints after every superstep and,
 * inside a fan-out, after each node that finishes while its siblings run, so a node that finished
 * is not run again; a node that was running when the process died runs again. DBOS gives the
 * run its takeover: the worker that recovers it runs this again.
 */
export async function runWorkflowExecution(
  workflow: DurableWorkflow,
  checkpoints: CheckpointStore,
  { runId, input = '' }: { runId: string; input?: string | ChatMessage | undefined },
  update: (update: AgentResponseUpdate) => void,
): Promise<{ reason: FinishReason; text: string; error?: { code: string; message: string } }> {
  // Refused before the run starts where it can be (`raf run --attach`); code may still send one.
  if (typeof input !== 'string') return { reason: 'other', text: '', error: WORKFLOW_TEXT_ONLY };
  const lines: string[] = [];
  const onEvent = (event: WorkflowEventLike) => {
    if (event.type !== 'output' || event.value === undefined) return;
    const line = typeof event.value === 'string' ? event.value : JSON.stringify(event.value);
    update({ type: 'text-delta', delta: lines.length > 0 ? `\n${line}` : line });
    lines.push(line);
  };
  const latest = await checkpoints.load(runId);
  const run = latest
    ? workflow.resume({ runId, checkpoints, onEvent })
    : workflow.run(input, { runId, checkpoints, onEvent });
  const result = await run.result;
  // The answer is every output of the run, also those a crashed execution produced before.
  const text = result.outputs
    .map((o) => (typeof o.value === 'string' ? o.value : JSON.stringify(o.value)))
    .join('\n');
  if (result.status === 'completed') return { reason: 'stop', text };
  if (result.status === 'cancelled') return { reason: 'cancelled', text };
  if (result.status === 'halted')
    return {
      reason: 'other',
      text,
      error: {
        code: 'RAF_WORKFLOW_HALTED',
        message: 'the workflow paused for input or approval, which a durable run cannot wait for yet',
      },
    };
  return {
    reason: 'other',
    text,
    error: result.error ?? { code: 'RAF_WORKFLOW', message: 'the workflow failed' },
  };
}
