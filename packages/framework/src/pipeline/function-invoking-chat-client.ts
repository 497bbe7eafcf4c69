import {
  type AgentResponseUpdate,
  addUsage,
  assistantMessage,
  CancelledError,
  type ChatClientRunOptions,
  type ChatMessage,
  type FinishUpdate,
  flattenBatches,
  getErrorMessage,
  type IChatClient,
  type ITool,
  type PendingApprovalBatch,
  serializeToolResult,
  type ToolCall,
  type ToolDefinition,
  type ToolResult,
  toolMessage,
  toToolDefinition,
  type Usage,
  updateBatches,
} from '@raf/core';
import { checkApprovals } from '../approval/approval-batch.js';
import { mergeTools } from '../tools/tool-registry.js';
import { DelegatingChatClient } from './chat-client-builder.js';
import { LoopGuard } from './loop-guard.js';
import { anyGated, planApprovals, prepareCalls, prepareResumedCalls } from './prepare-calls.js';
import { executeCalls, NEVER_ABORTED, type PreparedCall } from './tool-executor.js';

export interface FunctionInvokingOptions {
  /** Tool rounds allowed in one run (default 10); reaching it finishes with `maxRounds`. */
  maxToolRounds?: number;
  /** Identical consecutive calls allowed before the loop guard stops the run (default 3). */
  maxIdenticalCalls?: number;
}

/** What the model call needs, built directly (no spread-and-delete, which leaves a slow object). */
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

interface ToolIndex {
  byName: ReadonlyMap<string, ITool>;
  definitions: ToolDefinition[];
}

function indexTools(tools: readonly ITool[]): ToolIndex {
  return {
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    definitions: tools.map(toToolDefinition),
  };
}

type Turn = {
  text: string;
  reasoning: string;
  calls: ToolCall[];
  finish: FinishUpdate | undefined;
  failed: boolean;
};

/**
 * The tool loop: calls the model, runs the tools it asks for, sends the results back, and repeats
 * until the model answers without tools. Gated calls pause the run (`awaitingApproval`); a run
 * resumes from `options.pendingApproval` + `options.approvals`.
 */
export class FunctionInvokingChatClient extends DelegatingChatClient {
  readonly maxToolRounds: number;
  private readonly tools: readonly ITool[];
  private readonly maxIdenticalCalls: number;
  private staticTools: ToolIndex | undefined;

  constructor(inner: IChatClient, tools: readonly ITool[] = [], options: FunctionInvokingOptions = {}) {
    super(inner);
    this.tools = tools;
    this.maxToolRounds = options.maxToolRounds ?? 10;
    this.maxIdenticalCalls = options.maxIdenticalCalls ?? 3;
  }

  override run(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncIterable<AgentResponseUpdate> {
    return flattenBatches(this.loop(messages, options));
  }

  override runBatches(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncIterable<readonly AgentResponseUpdate[]> {
    return this.loop(messages, options);
  }

  // Batches in, batches out: one async step per network read, not one per update.
  private async *loop(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions,
  ): AsyncGenerator<readonly AgentResponseUpdate[], void, undefined> {
    const signal = options.signal ?? NEVER_ABORTED;
    const { byName, definitions } = this.toolIndex(options.providerTools);
    const conversation = [...messages];
    const guard = new LoopGuard(this.maxIdenticalCalls);
    let usage: Usage | undefined;
    let round = 0;
    const finish = (reason: FinishUpdate['reason'], extra: Partial<FinishUpdate> = {}): FinishUpdate[] => [
      { type: 'finish', reason, ...extra, ...(usage && { usage }) },
    ];

    if (options.pendingApproval) {
      const batch = options.pendingApproval;
      const decisions = checkApprovals(batch, options.approvals);
      const prepared = prepareResumedCalls(batch, decisions, byName);
      yield await this.runBatch(prepared, conversation, options, signal, []);
      if (signal.aborted) {
        yield finish('cancelled');
        return;
      }
      round = batch.round + 1;
      if (round >= this.maxToolRounds) {
        yield finish('maxRounds');
        return;
      }
    }

    const innerOptions = modelCallOptions(options, definitions);

    for (;;) {
      const turn: Turn = { text: '', reasoning: '', calls: [], finish: undefined, failed: false };
      try {
        for await (const batch of updateBatches(this.innerClient, conversation, innerOptions)) {
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
                break;
              case 'error':
                turn.failed = true;
                break;
              default:
                break;
            }
          }
          if (forward.length > 0) yield forward;
        }
      } catch (error) {
        if (CancelledError.isInstance(error) || signal.aborted) {
          yield finish('cancelled');
          return;
        }
        throw error;
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
        yield finish(last.reason, last.rawReason !== undefined ? { rawReason: last.rawReason } : {});
        return;
      }

      const prepared = prepareCalls(turn.calls, byName);
      const guarded = guard.check(prepared);
      // Always asked, guard or not: a gated call never runs without its human decision.
      const approvals = anyGated(prepared) ? await planApprovals(prepared) : [];
      if (approvals.length > 0) {
        const batch: PendingApprovalBatch = {
          toolCalls: turn.calls,
          gatedCallIds: approvals.map((a) => a.update.callId),
          round,
        };
        const targets = Object.fromEntries(
          approvals.filter((a) => a.target !== undefined).map((a) => [a.update.callId, a.target!]),
        );
        if (Object.keys(targets).length > 0) batch.resolvedTargets = targets;
        options.onTurnMessages?.([assistant]);
        options.onApprovalPending?.(batch);
        yield [...approvals.map((a) => a.update), ...finish('awaitingApproval')];
        return;
      }
      yield await this.runBatch(prepared, conversation, options, signal, [assistant]);
      if (signal.aborted) {
        yield finish('cancelled');
        return;
      }
      if (guarded) {
        yield [
          { type: 'warning', code: 'loop-guard', message: guarded },
          ...finish('other', { rawReason: 'loopGuard' }),
        ];
        return;
      }
      round++;
      if (round >= this.maxToolRounds) {
        yield finish('maxRounds');
        return;
      }
    }
  }

  /** Tools by name and their definitions; the static tools' are built once (and the request body's tool JSON with them). */
  private toolIndex(providerTools: readonly ITool[] | undefined): ToolIndex {
    if (providerTools && providerTools.length > 0)
      return indexTools(mergeTools(this.tools, providerTools).tools);
    this.staticTools ??= indexTools(this.tools);
    return this.staticTools;
  }

  /** Executes a batch, appends its messages to the conversation, returns its results in call order. */
  private async runBatch(
    prepared: PreparedCall[],
    conversation: ChatMessage[],
    options: ChatClientRunOptions,
    signal: AbortSignal,
    before: ChatMessage[],
  ): Promise<AgentResponseUpdate[]> {
    let results: ToolResult[];
    try {
      results = await executeCalls(prepared, signal);
    } catch (error) {
      // executeCalls turns tool failures into results; reaching here is a bug worth surfacing.
      throw new Error(`tool execution failed: ${getErrorMessage(error)}`, { cause: error });
    }
    const produced = [...before];
    const called: AgentResponseUpdate[] = [];
    for (let i = 0; i < prepared.length; i++) {
      const { call } = prepared[i]!;
      const result = results[i]!;
      produced.push(toolMessage(serializeToolResult(result), call.id));
      called.push({ type: 'tool-called', callId: call.id, name: call.name, result });
    }
    options.onTurnMessages?.(produced);
    conversation.push(...produced);
    return called;
  }
}
