import type { Span } from '@opentelemetry/api';
import {
  AgentResponseAccumulator,
  type AgentResponseUpdate,
  ApprovalError,
  CancelledError,
  type ChatMessage,
  type FinishUpdate,
  getErrorMessage,
  type IChatClient,
  type IContextProvider,
  type ISession,
  type PendingApprovalBatch,
  RafError,
  type Usage,
} from '@raf/core';
import { type AgentInput, type AgentRunOptions, normalizeInput } from '../agent/agent-run-options.js';
import { notifyProviders } from '../agent/provider-chain.js';
import { checkApprovals, checkBatchMatchesHistory } from '../approval/approval-batch.js';
import { NEVER_ABORTED } from '../pipeline/tool-call-context.js';
import type { InMemoryHistoryProvider } from '../providers/in-memory-history-provider.js';
import { AgentSession } from '../sessions/agent-session.js';
import { RunTrace, type TelemetryOptions } from '../telemetry/run-trace.js';
import type { RunState } from './run-state.js';
import type { RunJournal, RunNext } from './step.js';
import { InFlightRecorder, JournaledSession } from './turn-recorder.js';

/** What a run reads of its agent besides the loop's settings. */
export interface RunAgent {
  readonly name: string;
  readonly description: string | undefined;
  readonly client: IChatClient;
  readonly history: InMemoryHistoryProvider;
  /** History first, then the declared providers in order. */
  readonly providers: readonly IContextProvider[];
  readonly telemetry: TelemetryOptions;
}

/**
 * What one run holds around its steps: the session it writes through (journaled when a journal
 * is given), the collected response, the trace, and how it ends. It is the run's `RunJournal`:
 * each message a step adds goes to history once, in order (the input with the first of them).
 */
export class RunScope implements RunJournal {
  readonly session: ISession;
  readonly recorder: InFlightRecorder;
  readonly signal: AbortSignal;
  readonly input: ChatMessage[];
  readonly traced: { span: Span; trace: RunTrace } | undefined;
  private readonly accumulator = new AgentResponseAccumulator();
  private pendingInput: ChatMessage[];
  private requestMessages: ChatMessage[] = [];
  private failure: unknown;
  private ended = false;

  private constructor(
    private readonly agent: RunAgent,
    given: ISession,
    input: ChatMessage[],
    /** The paused batch this run resumes (its answers checked), if it resumes one. */
    readonly paused: PendingApprovalBatch | undefined,
    options: AgentRunOptions<unknown>,
  ) {
    this.signal = options.signal ?? NEVER_ABORTED;
    this.input = input;
    this.pendingInput = input;
    // With a journal every change of the session is journaled as the turn goes (SPEC §14.1).
    this.recorder = options.journal
      ? new JournaledSession(given, options.journal)
      : new InFlightRecorder(given);
    this.session = this.recorder instanceof JournaledSession ? this.recorder : given;
    this.traced = RunTrace.startAgent(
      agent.telemetry,
      {
        name: agent.name,
        description: agent.description,
        model: agent.client.modelId,
        provider: agent.client.provider,
      },
      this.session.id,
    );
  }

  /** Input that is not messages, or answers that do not fit the paused batch, throw here: nothing ran. */
  static open(agent: RunAgent, input: AgentInput, options: AgentRunOptions<unknown>): RunScope {
    const messages = normalizeInput(input);
    const given: ISession = options.session ?? new AgentSession();
    return new RunScope(agent, given, messages, checkResume(given, messages, options), options);
  }

  messages(messages: ChatMessage[]): void {
    this.agent.history.store(this.session, [...this.pendingInput, ...messages]);
    this.pendingInput = [];
  }

  pending(batch: PendingApprovalBatch | undefined): void {
    this.session.pendingApproval = batch;
  }

  /** The steps so far are written to the journal (nothing to wait for without one). */
  flush(): Promise<void> | void {
    return this.recorder.flush();
  }

  /**
   * The new input goes to the journal ahead of the first model call (SPEC §14.1): a crash while
   * the model answers keeps the user's message, and the resume asks the model again.
   */
  keepInput(): void {
    if (this.pendingInput.length > 0) this.recorder.input(this.pendingInput);
  }

  /** The prompt the run started from: what providers are told after the run. */
  started(state: RunState): void {
    this.requestMessages = state.messages.slice();
  }

  /** Adds a batch to the response; returns it. */
  saw(batch: readonly AgentResponseUpdate[]): readonly AgentResponseUpdate[] {
    for (let i = 0; i < batch.length; i++) this.accumulator.add(batch[i]!);
    return batch;
  }

  warnings(messages: readonly string[]): AgentResponseUpdate[] {
    return messages.map((message) => {
      const update: AgentResponseUpdate = { type: 'warning', message };
      this.accumulator.add(update);
      return update;
    });
  }

  /** A thrown failure: the `error` update to show (none when the run was cancelled). */
  failed(error: unknown): AgentResponseUpdate[] {
    this.failure = error;
    if (CancelledError.isInstance(error) || this.signal.aborted) return [];
    const code = RafError.isInstance(error) ? error.code : 'RAF_INTERNAL';
    return [...this.saw([{ type: 'error', code, message: getErrorMessage(error) }])];
  }

  /** A consumer that stops reading early: providers are still told, the trace still ends. */
  async abandoned(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.failure ??= new CancelledError('the caller stopped reading the run');
    await this.notify();
    if (this.traced) RunTrace.endAgent(this.traced.span, 'cancelled', this.usage(), this.failure);
  }

  /**
   * Ends the run: providers are told (before the caller sees the end), the turn's last steps are
   * kept, the trace ends, and the last batch carries the provider warnings and the `finish`.
   */
  async finish(next: RunNext, usage: Usage | undefined): Promise<AgentResponseUpdate[]> {
    this.ended = true;
    const failure = this.accumulator.failure;
    if (failure && this.failure === undefined) this.failure = new RafError('RAF_STREAM', failure.message);
    const warnings = await this.notify();
    const out: AgentResponseUpdate[] = [];
    let last = finishOf(next, usage);
    try {
      await this.recorder.flush();
    } catch (error) {
      this.failure = error;
      out.push({
        type: 'error',
        code: RafError.isInstance(error) ? error.code : 'RAF_INTERNAL',
        message: `the session journal could not be written: ${getErrorMessage(error)}`,
      });
      last = { type: 'finish', reason: 'other' };
    }
    this.saw(out);
    if (this.traced) RunTrace.endAgent(this.traced.span, last.reason, this.usage(), this.failure);
    return [...out, ...this.warnings(warnings), last];
  }

  private usage(): Usage | undefined {
    return this.accumulator.response.usage;
  }

  private notify(): Promise<string[]> {
    const response = this.accumulator.response;
    return notifyProviders(this.agent.providers, {
      agentName: this.agent.name,
      session: this.session,
      requestMessages: this.requestMessages,
      ...(this.failure === undefined ? { response } : { error: this.failure }),
      signal: this.signal,
    });
  }
}

/** The run's last update, from what its last step said. */
function finishOf(next: RunNext, usage: Usage | undefined): FinishUpdate {
  const finish = (reason: FinishUpdate['reason'], rawReason?: string): FinishUpdate => {
    const update: FinishUpdate = { type: 'finish', reason };
    if (rawReason !== undefined) update.rawReason = rawReason;
    if (usage) update.usage = usage;
    return update;
  };
  switch (next.type) {
    case 'final':
      return finish(next.finish.reason, next.finish.rawReason);
    case 'paused':
      return finish('awaitingApproval');
    case 'cancelled':
      return finish('cancelled');
    case 'stopped':
      return next.reason === 'maxRounds' ? finish('maxRounds') : finish('other', next.reason);
    default:
      return finish('other');
  }
}

/**
 * The paused batch the answers are checked against (once: the step takes them as they are), or
 * `undefined` for a run that resumes nothing. A paused session takes no new input.
 */
function checkResume(
  session: ISession,
  input: readonly ChatMessage[],
  options: AgentRunOptions<unknown>,
): PendingApprovalBatch | undefined {
  if (options.approvals !== undefined) {
    if (input.length > 0) {
      throw new ApprovalError(
        'a resumed run takes no new input: call agent.run(undefined, { session, approvals })',
      );
    }
    checkApprovals(session.pendingApproval, options.approvals, session.id);
    checkBatchMatchesHistory(session.pendingApproval, session.messages, session.id);
    return session.pendingApproval;
  }
  if (session.pendingApproval) {
    throw new ApprovalError(
      `session ${session.id} is paused waiting for approval of ${session.pendingApproval.gatedCallIds.join(', ')}; ` +
        'resume with agent.run(undefined, { session, approvals: [{ callId, approved }] })',
    );
  }
  return undefined;
}
