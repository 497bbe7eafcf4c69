import type { Span } from '@opentelemetry/api';
import {
  type AgentResponse,
  AgentResponseAccumulator,
  type AgentResponseUpdate,
  ApprovalError,
  assistantMessage,
  CancelledError,
  type ChatClientRunOptions,
  type ChatMessage,
  collectAgentResponse,
  type FinishUpdate,
  getErrorMessage,
  type IChatClient,
  type IContextProvider,
  type ISession,
  type ITool,
  inputBudget,
  RafError,
  systemMessage,
} from '@raf/core';
import { flattenBatches, updateBatches } from '@raf/core/internal';
import { type ApprovalDecisions, checkApprovals } from '../approval/approval-batch.js';
import type { ICompressionStrategy, ITokenCounter } from '../compression/compression-types.js';
import { NEVER_ABORTED } from '../pipeline/tool-call-context.js';
import type { ToolLoopRunOptions, ToolView } from '../pipeline/tool-loop-options.js';
import type { InMemoryHistoryProvider } from '../providers/in-memory-history-provider.js';
import { closingResults, interruptedTurn } from '../run/interrupted-turn.js';
import { InFlightRecorder, JournaledSession } from '../run/turn-recorder.js';
import {
  type AgentGovernance,
  composeViews,
  currentGovernance,
  governanceView,
} from '../runtime-policy/governance-view.js';
import { AgentSession } from '../sessions/agent-session.js';
import { RunTrace, type TelemetryOptions } from '../telemetry/run-trace.js';
import {
  type AgentInput,
  type AgentRunArgs,
  type AgentRunOptions,
  normalizeInput,
} from './agent-run-options.js';
import { invokeProviders, notifyProviders } from './provider-chain.js';

export interface AgentCompression {
  strategy: ICompressionStrategy;
  counter: ITokenCounter;
  /** Token budget of the prompt; defaults to the client's `inputBudget(modelMetadata)`. */
  inputBudget?: number;
}

export interface ChatClientAgentConfig {
  name: string;
  description?: string;
  instructions?: string;
  /** The client to call: the tool loop (`FunctionInvokingChatClient`) when `toolLoop` is true. */
  chatClient: IChatClient;
  tools: readonly ITool[];
  history: InMemoryHistoryProvider;
  /** Declared providers in order (the history provider is not among them). */
  contextProviders: readonly IContextProvider[];
  toolLoop: boolean;
  maxToolRounds: number;
  compression?: AgentCompression;
  /** Spans of each run (`invoke_agent`, `chat`, `execute_tool`); a no-op without a registered tracer. */
  telemetry?: TelemetryOptions;
  /** Tool governance, read before each run (a store is read again, so changes apply at once). */
  governance?: AgentGovernance;
}

/** Closes every object that has a `close()`, each once; the first failure is thrown after all tried. */
export async function closeAll(things: readonly unknown[]): Promise<void> {
  const closable = [...new Set(things)].filter(
    (t): t is { close(): unknown } => typeof (t as { close?: unknown } | null)?.close === 'function',
  );
  const settled = await Promise.allSettled(closable.map(async (t) => t.close()));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * An agent: history first, then the declared context providers in order, then the model through
 * the tool loop. `run` streams updates and always ends with one `finish`; a paused run (approval)
 * lives in the session, so it can be resumed later, in another process. `Context` is the type of
 * the run context its tools receive (`agent.run(input, { context })`).
 */
export class ChatClientAgent<Context = unknown> {
  readonly name: string;
  readonly description: string | undefined;
  readonly instructions: string | undefined;
  readonly chatClient: IChatClient;
  readonly toolLoop: boolean;
  readonly maxToolRounds: number;
  private readonly config: ChatClientAgentConfig;
  private readonly providers: readonly IContextProvider[];
  private closing: Promise<void> | undefined;

  constructor(config: ChatClientAgentConfig) {
    this.config = config;
    this.name = config.name;
    this.description = config.description;
    this.instructions = config.instructions;
    this.chatClient = config.chatClient;
    this.toolLoop = config.toolLoop;
    this.maxToolRounds = config.maxToolRounds;
    this.providers = [config.history, ...config.contextProviders];
  }

  /** Providers in execution order: the history provider first. */
  get contextProviders(): readonly IContextProvider[] {
    return this.providers;
  }

  get tools(): readonly ITool[] {
    return this.config.tools;
  }

  /** The governance this agent runs under (global source and its own `toolPolicy`), if any. */
  get governance(): AgentGovernance | undefined {
    return this.config.governance;
  }

  /**
   * Closes what the agent holds: each context provider with a `close()` (MCP servers, the
   * sub-agents' worker pool, a plugin's resources), once, all of them even when one fails (the
   * first failure is thrown after). The chat client is the caller's and stays open. Also
   * `await using agent = …` (`Symbol.asyncDispose`).
   */
  close(): Promise<void> {
    this.closing ??= closeAll(this.providers);
    return this.closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  createSession(id?: string): AgentSession {
    return new AgentSession(id);
  }

  run(input: AgentInput, ...args: AgentRunArgs<Context>): AsyncIterable<AgentResponseUpdate> {
    return flattenBatches(this.execute(input, args[0] ?? {}));
  }

  /**
   * Continues the session's interrupted turn (a crash between a tool call and its result): calls
   * whose result was kept are not run again; a call in doubt runs again only when its tool is
   * `idempotent`, else the model reads that it was interrupted. Same as `run(undefined, options)`.
   */
  resume(...args: AgentRunArgs<Context>): AsyncIterable<AgentResponseUpdate> {
    return this.run(undefined, ...args);
  }

  /** Runs to the end and returns the collected response (throws `StreamFailedError` on an error update). */
  generate(input: AgentInput, ...args: AgentRunArgs<Context>): Promise<AgentResponse> {
    return collectAgentResponse(this.run(input, ...args));
  }

  // Yields batches (one per network read of the model) so each update costs no async step of its own.
  private async *execute(
    input: AgentInput,
    options: AgentRunOptions<Context>,
  ): AsyncGenerator<readonly AgentResponseUpdate[], void, undefined> {
    const given: ISession = options.session ?? new AgentSession();
    const signal = options.signal ?? NEVER_ABORTED;
    const inputMessages = normalizeInput(input);
    const resuming = options.approvals !== undefined;
    const decisions = this.checkResume(given, inputMessages, options);
    // With a journal every change of the session is journaled as the turn goes (SPEC §14.1).
    const recorder = options.journal
      ? new JournaledSession(given, options.journal)
      : new InFlightRecorder(given);
    const session: ISession = recorder instanceof JournaledSession ? recorder : given;
    const interrupted = resuming ? undefined : interruptedTurn(session);
    const accumulator = new AgentResponseAccumulator();
    let requestMessages: ChatMessage[] = [];
    let failure: unknown;
    let finish: FinishUpdate | undefined;
    let notified = false;
    let chat: Span | undefined;
    const traced = RunTrace.startAgent(
      this.config.telemetry ?? {},
      {
        name: this.name,
        description: this.description,
        model: this.chatClient.modelId,
        provider: this.chatClient.provider,
      },
      session.id,
    );
    const notify = async () => {
      notified = true;
      const response = accumulator.response;
      return notifyProviders(this.providers, {
        agentName: this.name,
        session,
        requestMessages,
        ...(failure === undefined ? { response } : { error: failure }),
        signal,
      });
    };
    try {
      if (signal.aborted) throw new CancelledError();
      // New input after a crash: the interrupted calls are answered (nothing runs) before it joins.
      if (interrupted && (inputMessages.length > 0 || !this.toolLoop)) {
        this.config.history.store(session, closingResults(interrupted));
      }
      const context = await invokeProviders(this.providers, {
        agentName: this.name,
        session,
        input: inputMessages,
        signal,
      });
      if (context.warnings.length > 0) yield this.warnings(accumulator, context.warnings);
      if (!this.toolLoop && context.tools.length > 0) {
        yield this.track(accumulator, {
          type: 'warning',
          message: `context providers offered tools (${context.tools.map((t) => t.name).join(', ')}) but this agent has no tool loop; they were ignored`,
        });
      }
      requestMessages = this.composeMessages(
        context.instructions,
        context.messages,
        inputMessages,
        options.instructions,
      );
      const compressed = await this.compress(requestMessages, signal);
      if (compressed.warning) yield this.warnings(accumulator, [compressed.warning]);
      requestMessages = compressed.messages;

      // New messages are stored once, in order: the input together with the first turn's messages.
      let pendingInput = inputMessages;
      let stored = false;
      const store = (messages: ChatMessage[]) => {
        this.config.history.store(session, [...pendingInput, ...messages]);
        pendingInput = [];
        stored = true;
      };
      const governance = this.config.governance;
      const view = governance
        ? composeViews(
            governanceView(await currentGovernance(governance.source, signal), governance.policy),
            options.toolView,
          )
        : options.toolView;
      const runOptions = this.toolLoop
        ? this.loopOptions(session, context, options, resuming, store, traced?.trace ?? null, view)
        : this.requestOptions(options);
      if (this.toolLoop) {
        const loop = runOptions as ToolLoopRunOptions;
        loop.recorder = recorder;
        if (interrupted && inputMessages.length === 0) loop.interrupted = interrupted;
        if (decisions) loop.decisions = decisions;
        // The answered batch leaves the session before its calls run: a crash from here on leaves
        // an interrupted turn (calls in doubt), never a batch that could be approved twice.
        if (resuming) session.pendingApproval = undefined;
      }
      // Without the tool loop the agent makes the one model call itself.
      if (!this.toolLoop && traced)
        chat = traced.trace.startChat(
          this.chatClient.modelId,
          this.chatClient.provider,
          options.modelOptions,
        );
      for await (const batch of updateBatches(this.chatClient, requestMessages, runOptions)) {
        let forward = batch;
        for (let i = 0; i < batch.length; i++) {
          const update = batch[i]!;
          accumulator.add(update);
          if (update.type === 'finish') {
            // Held back: providers are notified before the caller sees the run end.
            finish = update;
            forward = batch.filter((u) => u.type !== 'finish');
          }
        }
        if (forward.length > 0) yield forward;
      }
      // A client without the tool loop reports no turn messages: store its answer here.
      if (!stored && !accumulator.failure && finish && finish.reason !== 'cancelled') {
        store([assistantMessage(accumulator.response.text)]);
      }
      if (accumulator.failure) failure = new RafError('RAF_STREAM', accumulator.failure.message);
      if (chat && traced) {
        const { usage } = accumulator.response;
        traced.trace.endChat(chat, {
          ...(finish && { finishReason: finish.reason }),
          ...(usage && { usage }),
          ...(accumulator.failure && {
            error: { type: accumulator.failure.code, message: accumulator.failure.message },
          }),
        });
        chat = undefined;
      }
    } catch (error) {
      failure = error;
      if (chat && traced) traced.trace.endChat(chat, { error });
      if (CancelledError.isInstance(error) || signal.aborted)
        finish = { type: 'finish', reason: 'cancelled' };
      else {
        const code = RafError.isInstance(error) ? error.code : 'RAF_INTERNAL';
        yield this.track(accumulator, { type: 'error', code, message: getErrorMessage(error) });
        finish = { type: 'finish', reason: 'other' };
      }
    } finally {
      // A consumer that stops reading early still gets onInvoked called.
      if (!notified && finish === undefined) {
        failure ??= new CancelledError('the caller stopped reading the run');
        await notify();
        if (chat) traced?.trace.endChat(chat, { error: failure });
        if (traced) RunTrace.endAgent(traced.span, 'cancelled', accumulator.response.usage, failure);
      }
    }
    const warnings = notified ? [] : await notify();
    let last: FinishUpdate = finish ?? { type: 'finish', reason: 'other' };
    // The turn's last steps (the answer, provider state, a paused batch) are kept before it ends.
    try {
      await recorder.flush();
    } catch (error) {
      failure = error;
      yield this.track(accumulator, {
        type: 'error',
        code: RafError.isInstance(error) ? error.code : 'RAF_INTERNAL',
        message: `the session journal could not be written: ${getErrorMessage(error)}`,
      });
      last = { type: 'finish', reason: 'other' };
    }
    if (traced) RunTrace.endAgent(traced.span, last.reason, accumulator.response.usage, failure);
    yield [...this.warnings(accumulator, warnings), last];
  }

  /** Request data only, for an agent whose client is not the tool loop. */
  private requestOptions(options: AgentRunOptions<Context>): ChatClientRunOptions {
    const request: ChatClientRunOptions = {};
    // Only a caller's signal goes down: watching a signal that can never fire costs every call.
    if (options.signal) request.signal = options.signal;
    if (options.modelOptions) request.modelOptions = options.modelOptions;
    return request;
  }

  /** What the tool loop needs besides the request: tools, the paused batch, callbacks, context. */
  private loopOptions(
    session: ISession,
    provided: { tools: readonly ITool[]; currentTools?: () => Promise<readonly ITool[]> },
    options: AgentRunOptions<Context>,
    resuming: boolean,
    store: (messages: ChatMessage[]) => void,
    trace: RunTrace | null,
    view: ToolView | undefined,
  ): ToolLoopRunOptions {
    const loop: ToolLoopRunOptions = {
      onTurnMessages: store,
      onApprovalPending: (batch) => {
        session.pendingApproval = batch;
      },
      sessionId: session.id,
      trace,
    };
    if (options.context !== undefined) loop.context = options.context;
    if (options.onInputRequest) loop.onInputRequest = options.onInputRequest;
    if (options.signal) loop.signal = options.signal;
    // The tool loop builds the tool definitions from its static tools plus these.
    if (provided.tools.length > 0) loop.providerTools = provided.tools;
    if (provided.currentTools) loop.currentProviderTools = provided.currentTools;
    if (options.modelOptions) loop.modelOptions = options.modelOptions;
    if (view) loop.toolView = view;
    if (resuming && session.pendingApproval) {
      loop.pendingApproval = session.pendingApproval;
      loop.approvals = options.approvals ?? [];
    }
    return loop;
  }

  private track(accumulator: AgentResponseAccumulator, update: AgentResponseUpdate): AgentResponseUpdate[] {
    accumulator.add(update);
    return [update];
  }

  private warnings(
    accumulator: AgentResponseAccumulator,
    messages: readonly string[],
  ): AgentResponseUpdate[] {
    return messages.map((message) => {
      const update: AgentResponseUpdate = { type: 'warning', message };
      accumulator.add(update);
      return update;
    });
  }

  /** The answers checked against the paused batch (once: the loop takes them as they are). */
  private checkResume(
    session: ISession,
    input: ChatMessage[],
    options: AgentRunOptions<Context>,
  ): ApprovalDecisions | undefined {
    if (options.approvals !== undefined) {
      if (input.length > 0) {
        throw new ApprovalError(
          'a resumed run takes no new input: call agent.run(undefined, { session, approvals })',
        );
      }
      return checkApprovals(session.pendingApproval, options.approvals, session.id);
    }
    if (session.pendingApproval) {
      throw new ApprovalError(
        `session ${session.id} is paused waiting for approval of ${session.pendingApproval.gatedCallIds.join(', ')}; ` +
          'resume with agent.run(undefined, { session, approvals: [{ callId, approved }] })',
      );
    }
    return undefined;
  }

  /** `[system] + context messages + input`; system messages from providers or the caller join the instructions. */
  private composeMessages(
    providerInstructions: string[],
    context: ChatMessage[],
    input: ChatMessage[],
    runInstructions: string | undefined,
  ): ChatMessage[] {
    const instructions = [runInstructions ?? this.instructions, ...providerInstructions];
    const messages: ChatMessage[] = [];
    for (const message of [...context, ...input]) {
      if (message.role === 'system') instructions.push(message.content);
      else messages.push(message);
    }
    const system = instructions.filter((text): text is string => Boolean(text?.trim())).join('\n\n');
    return system ? [systemMessage(system), ...messages] : messages;
  }

  private async compress(
    messages: ChatMessage[],
    signal: AbortSignal,
  ): Promise<{ messages: ChatMessage[]; warning?: string }> {
    const compression = this.config.compression;
    if (!compression) return { messages };
    const metadata = this.chatClient.modelMetadata;
    const budget = compression.inputBudget ?? (metadata ? inputBudget(metadata) : undefined);
    if (budget === undefined || compression.counter.countTokens(messages) <= budget) return { messages };
    try {
      return {
        messages: await compression.strategy.compress(messages, budget, compression.counter, { signal }),
      };
    } catch (error) {
      if (signal.aborted) throw error;
      return {
        messages,
        warning: `compression (${compression.strategy.name}) failed; the full history was sent: ${getErrorMessage(error)}`,
      };
    }
  }
}
