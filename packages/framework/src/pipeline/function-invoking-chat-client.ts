import type { Span } from '@opentelemetry/api';
import {
  type AgentResponseUpdate,
  addUsage,
  assistantMessage,
  CancelledError,
  type ChatClientRunOptions,
  type ChatMessage,
  type FinishUpdate,
  getErrorMessage,
  type IChatClient,
  type ITool,
  type PendingApprovalBatch,
  serializeToolResult,
  type ToolCall,
  type ToolDefinition,
  type ToolResult,
  toolMessage,
  type Usage,
} from '@raf/core';
import { flattenBatches, updateBatches } from '@raf/core/internal';
import { checkApprovals } from '../approval/approval-batch.js';
import { prepareInterruptedCalls } from '../run/interrupted-turn.js';
import { RunTrace, type TelemetryOptions } from '../telemetry/run-trace.js';
import { mergeTools } from '../tools/tool-registry.js';
import { CallWatchdog } from './call-watchdog.js';
import { DelegatingChatClient } from './chat-client-builder.js';
import { LoopGuard } from './loop-guard.js';
import {
  anyGated,
  type PlannedApproval,
  planApprovals,
  prepareCalls,
  prepareResumedCalls,
} from './prepare-calls.js';
import { PROGRESS, ProgressChannel } from './progress-channel.js';
import type { LoopHooks, StepResult, StopCondition } from './step-hooks.js';
import {
  indexTools,
  prepareStep,
  type StepRequest,
  shouldStop,
  stepFinished,
  type ToolIndex,
  type Turn,
} from './step-runner.js';
import { NEVER_ABORTED } from './tool-call-context.js';
import { executeCalls, type PreparedCall, type ToolRun } from './tool-executor.js';
import type { ToolLoopRunOptions, ToolView } from './tool-loop-options.js';
import type { ToolSuspension } from './tool-suspension.js';
import { checkTimeoutMs, DEFAULT_TOOL_TIMEOUT_MS, ToolTimeouts } from './tool-timeouts.js';

export interface FunctionInvokingOptions {
  /** Tool rounds allowed in one run (default 10); reaching it finishes with `maxRounds`. */
  maxToolRounds?: number;
  /** Identical consecutive calls allowed before the loop guard stops the run (default 3). */
  maxIdenticalCalls?: number;
  /** How long one tool call may run (default 120 s) unless its manifest or `toolTimeouts` says. */
  toolTimeoutMs?: number;
  /** Time limits by tool name, over the tool's own `manifest.timeoutMs`. */
  toolTimeouts?: Readonly<Record<string, number>>;
  /** `prepareStep`, `onStepFinish`, `onToolStart`, `onToolEnd`. */
  hooks?: LoopHooks;
  /** Ends the run after a step that ran tools when any condition holds (`stepCountIs`, `hasToolCall`). */
  stopWhen?: StopCondition | readonly StopCondition[];
  /** Spans when the loop runs without an agent (an agent passes its own trace down). */
  telemetry?: TelemetryOptions;
}

/** What the model call needs, built directly (no spread-and-delete, which leaves a slow object). */
function sameTools(a: readonly ITool[], b: readonly ITool[]): boolean {
  return a === b || (a.length === b.length && a.every((tool, i) => tool === b[i]));
}

function modelCallOptions(options: ChatClientRunOptions, tools: ToolDefinition[]): ChatClientRunOptions {
  const inner: ChatClientRunOptions = { tools };
  if (options.signal) inner.signal = options.signal;
  if (options.toolChoice !== undefined) inner.toolChoice = options.toolChoice;
  if (options.parallelToolCalls !== undefined) inner.parallelToolCalls = options.parallelToolCalls;
  if (options.modelOptions) inner.modelOptions = options.modelOptions;
  if (options.extraBody) inner.extraBody = options.extraBody;
  if (options.extraHeaders) inner.extraHeaders = options.extraHeaders;
  return inner;
}

/**
 * The tool loop: calls the model, runs the tools it asks for, sends the results back, and repeats
 * until the model answers without tools. Gated calls pause the run (`awaitingApproval`); a run
 * resumes from `options.pendingApproval` + `options.approvals`.
 */
export class FunctionInvokingChatClient extends DelegatingChatClient {
  readonly maxToolRounds: number;
  /** The default time limit of one tool call. */
  readonly toolTimeoutMs: number;
  private readonly tools: readonly ITool[];
  private readonly maxIdenticalCalls: number;
  private readonly timeouts: ToolTimeouts;
  private readonly hooks: LoopHooks | undefined;
  private readonly stopWhen: readonly StopCondition[] | undefined;
  private readonly telemetry: TelemetryOptions;
  private staticTools: ToolIndex | undefined;

  constructor(inner: IChatClient, tools: readonly ITool[] = [], options: FunctionInvokingOptions = {}) {
    super(inner);
    this.tools = tools;
    this.maxToolRounds = options.maxToolRounds ?? 10;
    this.maxIdenticalCalls = options.maxIdenticalCalls ?? 3;
    const byName = options.toolTimeouts
      ? new Map(
          Object.entries(options.toolTimeouts).map(([name, ms]) => [
            name,
            checkTimeoutMs(ms, `the timeout of tool '${name}'`),
          ]),
        )
      : undefined;
    this.toolTimeoutMs = checkTimeoutMs(options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, 'toolTimeoutMs');
    this.timeouts = new ToolTimeouts(this.toolTimeoutMs, byName);
    const hooks = options.hooks;
    this.hooks =
      hooks && (hooks.prepareStep || hooks.onStepFinish || hooks.onToolStart || hooks.onToolEnd)
        ? hooks
        : undefined;
    const stopWhen = options.stopWhen === undefined ? [] : [options.stopWhen].flat();
    this.stopWhen = stopWhen.length > 0 ? stopWhen : undefined;
    this.telemetry = options.telemetry ?? {};
  }

  override run(
    messages: readonly ChatMessage[],
    options: ToolLoopRunOptions = {},
  ): AsyncIterable<AgentResponseUpdate> {
    return flattenBatches(this.loop(messages, options));
  }

  override runBatches(
    messages: readonly ChatMessage[],
    options: ToolLoopRunOptions = {},
  ): AsyncIterable<readonly AgentResponseUpdate[]> {
    return this.loop(messages, options);
  }

  // Batches in, batches out: one async step per network read, not one per update.
  private async *loop(
    messages: readonly ChatMessage[],
    options: ToolLoopRunOptions,
  ): AsyncGenerator<readonly AgentResponseUpdate[], void, undefined> {
    const signal = options.signal ?? NEVER_ABORTED;
    let index = this.toolIndex(options.providerTools, options.toolView);
    let providerTools = options.providerTools ?? [];
    let conversation = [...messages];
    const guard = new LoopGuard(this.maxIdenticalCalls);
    const hooks = this.hooks;
    // An agent passes its trace (or null: nothing records); alone, the first chat span tells.
    let trace = options.trace ?? undefined;
    let probe = options.trace === undefined ? RunTrace.standalone(this.telemetry) : undefined;
    const run: ToolRun = {
      signal,
      context: options.context,
      sessionId: options.sessionId,
      timeouts: this.timeouts,
      sink: new ProgressChannel(),
      watchdog: new CallWatchdog(),
      observer: undefined,
      recorder: options.recorder,
      onInputRequest: options.onInputRequest,
    };
    const observe = () => {
      if (trace || hooks?.onToolStart || hooks?.onToolEnd) run.observer = { hooks, trace, warnings: [] };
    };
    observe();
    // Steps are kept only for stop conditions; timing only for hooks that read it.
    const steps: StepResult[] | undefined = this.stopWhen ? [] : undefined;
    const timed = steps !== undefined || hooks?.onStepFinish !== undefined;
    let usage: Usage | undefined;
    let round = 0;
    const finish = (reason: FinishUpdate['reason'], extra: Partial<FinishUpdate> = {}): FinishUpdate[] => [
      { type: 'finish', reason, ...extra, ...(usage && { usage }) },
    ];

    // A paused batch answered, or a turn a crash interrupted: its calls run before any model call.
    if (options.pendingApproval || options.interrupted) {
      let prepared: PreparedCall[];
      if (options.pendingApproval) {
        const batch = options.pendingApproval;
        round = batch.round;
        const decisions = options.decisions ?? checkApprovals(batch, options.approvals);
        // Results the journal kept before a crash are in the history already: not added twice.
        const answered = answeredCalls(conversation);
        prepared = prepareResumedCalls(batch, decisions, index.byName).filter(
          (p) => !answered.has(p.call.id),
        );
      } else {
        const turn = options.interrupted!;
        round = turn.round;
        prepared = prepareInterruptedCalls(turn, index.byName);
        const approvals = anyGated(prepared) ? await planApprovals(prepared, run) : [];
        if (approvals.length > 0) {
          yield this.pause(
            pausedForApproval(turn.calls, approvals, round, prepared),
            approvals,
            options,
            finish,
          );
          return;
        }
      }
      const resumed = yield* this.runBatch(prepared, conversation, options, run, round);
      if (signal.aborted) {
        yield finish('cancelled');
        return;
      }
      if (resumed.suspended) {
        yield [...suspendedRequests(resumed.suspended), ...finish('awaitingApproval')];
        return;
      }
      round++;
      if (round >= this.maxToolRounds) {
        yield finish('maxRounds');
        return;
      }
    }

    let innerOptions = modelCallOptions(options, index.definitions);
    let first = true;

    for (;;) {
      // A provider's tools that changed since the last round (an MCP server's list_changed).
      if (!first && options.currentProviderTools) {
        const now = await options.currentProviderTools();
        if (!sameTools(now, providerTools)) {
          providerTools = now;
          index = this.toolIndex(now, options.toolView);
          innerOptions = modelCallOptions(options, index.definitions);
        }
      }
      first = false;
      // The steps so far are kept before the model is asked again (the turn journal).
      if (options.recorder) await options.recorder.flush();
      const started = timed ? performance.now() : 0;
      let request: StepRequest = { options: innerOptions, byName: index.byName };
      if (hooks?.prepareStep) {
        const prepared = await prepareStep(hooks, round, conversation, index, options, innerOptions);
        request = prepared.request;
        if (prepared.messages) conversation = prepared.messages;
      }
      let chat: Span | undefined;
      if (probe) {
        chat = probe.startChat(this.modelId, this.provider, request.options.modelOptions);
        if (chat.isRecording()) trace = probe;
        else {
          chat.end();
          chat = undefined;
        }
        probe = undefined;
        observe();
      } else if (trace) {
        chat = trace.startChat(this.modelId, this.provider, request.options.modelOptions);
      }
      const turn: Turn = {
        text: '',
        reasoning: '',
        calls: [],
        finish: undefined,
        failed: false,
        usage: undefined,
      };
      let error: { type: string; message: string } | undefined;
      let responseId: string | undefined;
      let responseModel: string | undefined;
      try {
        for await (const batch of updateBatches(this.innerClient, conversation, request.options)) {
          let forward = batch;
          for (let i = 0; i < batch.length; i++) {
            const update = batch[i]!;
            switch (update.type) {
              case 'finish':
                // The loop sends its own finish; the model's ends this turn only.
                turn.finish = update;
                forward = batch.filter((u) => u.type !== 'finish');
                break;
              case 'text-delta':
                turn.text += update.delta;
                break;
              case 'reasoning-delta':
                turn.reasoning += update.delta;
                break;
              case 'tool-call-end':
                turn.calls.push({ id: update.callId, name: update.name, arguments: update.arguments });
                break;
              case 'usage':
                usage = addUsage(usage, update.usage);
                turn.usage = addUsage(turn.usage, update.usage);
                break;
              case 'response-metadata':
                responseId = update.id;
                responseModel = update.model;
                break;
              case 'error':
                turn.failed = true;
                error = { type: update.code, message: update.message };
                break;
              default:
                break;
            }
          }
          if (forward.length > 0) yield forward;
        }
      } catch (thrown) {
        if (chat) trace?.endChat(chat, { error: thrown });
        if (CancelledError.isInstance(thrown) || signal.aborted) {
          yield finish('cancelled');
          return;
        }
        throw thrown;
      }
      if (chat) {
        const outcome: Parameters<RunTrace['endChat']>[1] = { usage: turn.usage };
        if (turn.finish) outcome.finishReason = turn.finish.reason;
        if (responseId) outcome.responseId = responseId;
        if (responseModel) outcome.responseModel = responseModel;
        if (error) outcome.error = error;
        trace?.endChat(chat, outcome);
      }
      if (turn.failed) {
        yield finish('other');
        return;
      }
      const assistant = assistantMessage(turn.text, turn.calls.length > 0 ? turn.calls : undefined);
      if (turn.reasoning) assistant.reasoning = turn.reasoning;
      if (turn.calls.length === 0) {
        options.onTurnMessages?.([assistant]);
        const last = turn.finish ?? { type: 'finish', reason: 'stop' };
        if (timed) {
          const warning = await stepFinished(this.hooks, steps, round, turn, [], last.reason, started);
          if (warning) yield warning;
        }
        yield finish(last.reason, last.rawReason !== undefined ? { rawReason: last.rawReason } : {});
        return;
      }

      const prepared = prepareCalls(turn.calls, request.byName);
      const guarded = guard.check(prepared);
      // Always asked, guard or not: a gated call never runs without its human decision.
      const approvals = anyGated(prepared) ? await planApprovals(prepared, run) : [];
      // The assistant message is kept before its calls run: a crash then leaves an interrupted turn.
      options.onTurnMessages?.([assistant]);
      conversation.push(assistant);
      if (approvals.length > 0) {
        const batch = pausedForApproval(turn.calls, approvals, round);
        if (timed) {
          const warning = await stepFinished(this.hooks, steps, round, turn, [], 'toolCalls', started);
          if (warning) yield warning;
        }
        yield this.pause(batch, approvals, options, finish);
        return;
      }
      const ran = yield* this.runBatch(prepared, conversation, options, run, round);
      if (signal.aborted) {
        yield finish('cancelled');
        return;
      }
      if (timed) {
        const warning = await stepFinished(this.hooks, steps, round, turn, ran.called, 'toolCalls', started);
        if (warning) yield warning;
      }
      if (ran.suspended) {
        yield [...suspendedRequests(ran.suspended), ...finish('awaitingApproval')];
        return;
      }
      if (guarded) {
        yield [
          { type: 'warning', code: 'loop-guard', message: guarded },
          ...finish('other', { rawReason: 'loopGuard' }),
        ];
        return;
      }
      if (steps && (await shouldStop(this.stopWhen, round, steps))) {
        yield finish('other', { rawReason: 'stopCondition' });
        return;
      }
      round++;
      if (round >= this.maxToolRounds) {
        yield finish('maxRounds');
        return;
      }
    }
  }

  /** Keeps the paused batch in the session and ends the run waiting for the answers. */
  private pause(
    batch: PendingApprovalBatch,
    approvals: readonly PlannedApproval[],
    options: ToolLoopRunOptions,
    finish: (reason: FinishUpdate['reason']) => FinishUpdate[],
  ): AgentResponseUpdate[] {
    options.onApprovalPending?.(batch);
    return [...approvals.map((a) => a.update), ...finish('awaitingApproval')];
  }

  /** Tools by name and their definitions; the static tools' are built once (and the request body's tool JSON with them). */
  private toolIndex(providerTools: readonly ITool[] | undefined, view: ToolView | undefined): ToolIndex {
    if (view)
      return indexTools(view(providerTools ? mergeTools(this.tools, providerTools).tools : this.tools));
    if (providerTools && providerTools.length > 0)
      return indexTools(mergeTools(this.tools, providerTools).tools);
    this.staticTools ??= indexTools(this.tools);
    return this.staticTools;
  }

  /**
   * Executes a batch (yielding the progress its tools report meanwhile), appends its messages to
   * the conversation, yields its results in call order and returns them. When a call suspended
   * (`ToolSuspension`), nothing goes to the conversation: the batch is paused in the session with
   * the other calls' results, and returned as `suspended`.
   */
  private async *runBatch(
    prepared: PreparedCall[],
    conversation: ChatMessage[],
    options: ToolLoopRunOptions,
    run: ToolRun,
    round: number,
  ): AsyncGenerator<
    readonly AgentResponseUpdate[],
    { called: AgentResponseUpdate[]; suspended?: PendingApprovalBatch }
  > {
    const channel = run.sink as ProgressChannel;
    let results: ToolResult[];
    try {
      const execution = executeCalls(prepared, run);
      for (;;) {
        const next = await channel.next(execution);
        if (next !== PROGRESS) {
          results = next;
          break;
        }
        yield channel.drain();
      }
    } catch (error) {
      // executeCalls turns tool failures into results; reaching here is a bug worth surfacing.
      throw new Error(`tool execution failed: ${getErrorMessage(error)}`, { cause: error });
    }
    const suspensions = run.suspensions;
    if (suspensions && suspensions.size > 0) {
      run.suspensions = undefined;
      const batch = pausedBatch(prepared, results, suspensions, round);
      const progress = channel.drain();
      if (progress.length > 0) yield progress;
      options.onApprovalPending?.(batch);
      return { called: [], suspended: batch };
    }
    const produced: ChatMessage[] = [];
    const called: AgentResponseUpdate[] = channel.drain();
    for (let i = 0; i < prepared.length; i++) {
      const { call } = prepared[i]!;
      const result = results[i]!;
      produced.push(toolMessage(serializeToolResult(result), call.id));
      called.push({ type: 'tool-called', callId: call.id, name: call.name, result });
    }
    const warnings = run.observer?.warnings;
    if (warnings && warnings.length > 0) {
      for (const message of warnings.splice(0)) called.push({ type: 'warning', message });
    }
    options.onTurnMessages?.(produced);
    conversation.push(...produced);
    yield called;
    return { called };
  }
}

/** The batch paused by suspended calls: the others' results kept, each suspended call's state and requests. */
function pausedBatch(
  prepared: readonly PreparedCall[],
  results: readonly ToolResult[],
  suspensions: ReadonlyMap<string, ToolSuspension>,
  round: number,
): PendingApprovalBatch {
  const done: Record<string, ToolResult> = {};
  const suspended: NonNullable<PendingApprovalBatch['suspended']> = {};
  const gatedCallIds: string[] = [];
  for (let i = 0; i < prepared.length; i++) {
    const id = prepared[i]!.call.id;
    const suspension = suspensions.get(id);
    if (suspension) {
      suspended[id] = { requests: suspension.requests, state: suspension.state };
      for (const request of suspension.requests) gatedCallIds.push(request.callId);
    } else done[id] = results[i]!;
  }
  const batch: PendingApprovalBatch = {
    toolCalls: prepared.map((p) => p.call),
    gatedCallIds,
    round,
    suspended,
  };
  if (Object.keys(done).length > 0) batch.results = done;
  return batch;
}

/**
 * The batch paused on gated calls. `prepared` answers kept with it (calls in doubt after a crash)
 * are its `results`: the resume never runs them.
 */
function pausedForApproval(
  calls: ToolCall[],
  approvals: readonly PlannedApproval[],
  round: number,
  prepared?: readonly PreparedCall[],
): PendingApprovalBatch {
  const batch: PendingApprovalBatch = {
    toolCalls: calls,
    gatedCallIds: approvals.map((a) => a.update.callId),
    round,
  };
  const targets: Record<string, string> = {};
  let targeted = false;
  for (const a of approvals) {
    if (a.target === undefined) continue;
    targets[a.update.callId] = a.target;
    targeted = true;
  }
  if (targeted) batch.resolvedTargets = targets;
  const results: Record<string, ToolResult> = {};
  let answered = false;
  for (const p of prepared ?? []) {
    if (!p.preset) continue;
    results[p.call.id] = p.preset;
    answered = true;
  }
  if (answered) batch.results = results;
  return batch;
}

/** Ids of the calls answered by tool messages at the end of the conversation. */
function answeredCalls(conversation: readonly ChatMessage[]): Set<string> {
  const ids = new Set<string>();
  for (let i = conversation.length - 1; i >= 0; i--) {
    const message = conversation[i]!;
    if (message.role !== 'tool') break;
    if (message.toolCallId !== undefined) ids.add(message.toolCallId);
  }
  return ids;
}

/** The approval requests of the suspended calls, in call order. */
function suspendedRequests(batch: PendingApprovalBatch): AgentResponseUpdate[] {
  return Object.values(batch.suspended ?? {}).flatMap((s) => s.requests);
}
