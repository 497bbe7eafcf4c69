import {
  type AgentResponseUpdate,
  type ChatClientRunOptions,
  type ChatMessage,
  type IChatClient,
  type ITool,
  parseToolResult,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
} from '@raf/core';
import { DelegatingChatClient, INTERRUPTED_ERROR, manifestOf } from '@raf/framework';
import * as z from 'zod';
import type { DurableTables } from './durable-tables.js';
import type { Dbos } from './load-sdk.js';

/** What the steps of one running workflow share (made anew each time the workflow runs or replays). */
export interface RunSteps {
  dbos: Dbos;
  tables: DurableTables;
  runId: string;
  /** Model calls made so far in this execution: the n-th is step `model:n` in any process. */
  modelCalls: number;
  /** Called when a step's body runs (it is not replayed from its record): the execution is live from there. */
  onLive?: () => void;
}

/** Finds the steps of the workflow the caller runs in (AsyncLocalStorage of DBOS), if any. */
export type StepsLookup = () => RunSteps | undefined;

// The recorded updates come back from the database: their shape is checked (a row another tool
// wrote is refused, not replayed); each update's fields are the model client's own.
const UPDATE_TYPES = [
  'text-delta',
  'reasoning-delta',
  'tool-call-start',
  'tool-call-args',
  'tool-call-end',
  'tool-called',
  'tool-progress',
  'tool-approval-request',
  'input-request',
  'usage',
  'response-metadata',
  'warning',
  'error',
  'finish',
] as const;
const recordedUpdates = z.object({
  updates: z.array(z.looseObject({ type: z.enum(UPDATE_TYPES) })),
});

/**
 * The chat-client decorator of a durable run: inside a DBOS workflow each model call is the step
 * `model:<n>`, whose recorded updates are replayed on recovery instead of calling the model
 * again. Outside a workflow it passes every call through.
 */
export class DurableModelClient extends DelegatingChatClient {
  constructor(
    inner: IChatClient,
    private readonly steps: StepsLookup,
  ) {
    super(inner);
  }

  override run(
    messages: readonly ChatMessage[],
    options?: ChatClientRunOptions,
  ): AsyncIterable<AgentResponseUpdate> {
    const steps = this.steps();
    if (!steps || steps.dbos.isInStep()) return this.innerClient.run(messages, options);
    return this.stepped(steps, messages, options);
  }

  private async *stepped(
    steps: RunSteps,
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions | undefined,
  ): AsyncGenerator<AgentResponseUpdate> {
    const n = steps.modelCalls++;
    // Made now: the updates go on to the loop as they arrive (live text) while the step collects
    // them. Replayed: the step's body does not run and its recorded updates go on instead.
    const live: AgentResponseUpdate[] = [];
    let wake: (() => void) | undefined;
    let ran = false;
    const step = steps.dbos.runStep(
      async () => {
        ran = true;
        steps.onLive?.();
        const all: AgentResponseUpdate[] = [];
        for await (const update of this.innerClient.run(messages, options)) {
          all.push(update);
          live.push(update);
          wake?.();
        }
        return { updates: all };
      },
      { name: `model:${n}` },
    );
    let done = false;
    let failed = false;
    let recorded: unknown;
    let failure: unknown;
    step.then(
      (value) => {
        recorded = value;
        done = true;
        wake?.();
      },
      (error: unknown) => {
        failure = error;
        failed = true;
        done = true;
        wake?.();
      },
    );
    let sent = 0;
    for (;;) {
      while (sent < live.length) yield live[sent++]!;
      if (done) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (done || sent < live.length) resolve();
      });
      wake = undefined;
    }
    while (sent < live.length) yield live[sent++]!;
    if (failed) throw failure;
    if (ran) return;
    const parsed = recordedUpdates.safeParse(recorded);
    if (!parsed.success)
      throw new Error(`run ${steps.runId}: the recorded step model:${n} is not a list of updates`);
    yield* parsed.data.updates as unknown as AgentResponseUpdate[];
  }
}

/**
 * A tool whose calls are DBOS steps named by their call id (`tool:<callId>`): a finished call is
 * answered from its record on recovery. A call that started before and has no record is in doubt
 * (SPEC §14.1): it runs again only when its manifest says `idempotent`, else the model reads that
 * it was interrupted.
 */
export function durableTool(tool: ITool, steps: StepsLookup): ITool {
  const wrapped: ITool = {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    execute: (args, ctx) => executeStep(tool, args, ctx, steps()),
  };
  if (tool.kind !== undefined) wrapped.kind = tool.kind;
  // The manifest the loop reads (execution mode, timeouts) is the tool's, found as the loop finds it.
  wrapped.manifest = manifestOf(tool);
  if (tool.requiresApproval) {
    const requires = tool.requiresApproval.bind(tool);
    wrapped.requiresApproval = (args, context) => requires(args, context);
  }
  if (tool.validateArguments) wrapped.validateArguments = tool.validateArguments.bind(tool);
  if (tool.resolveTarget) wrapped.resolveTarget = tool.resolveTarget.bind(tool);
  return wrapped;
}

async function executeStep(
  tool: ITool,
  args: unknown,
  ctx: ToolExecutionContext,
  steps: RunSteps | undefined,
): Promise<ToolResult> {
  if (!steps || steps.dbos.isInStep()) return tool.execute(args, ctx);
  const idempotent = manifestOf(tool).idempotent === true;
  const recorded = await steps.dbos.runStep(
    async (): Promise<ToolResult> => {
      if (steps.onLive) {
        steps.onLive();
        // A delegation replayed past its deadline stops at its first live step: this one does not start.
        if (ctx.signal.aborted) return toolFailure('Cancelled: the run stopped before this call started');
      }
      const first = await steps.tables.markStarted(steps.runId, ctx.callId);
      if (!first && !idempotent) return toolFailure(INTERRUPTED_ERROR);
      return tool.execute(args, ctx);
    },
    { name: `tool:${ctx.callId}` },
  );
  return parseToolResult(recorded);
}
