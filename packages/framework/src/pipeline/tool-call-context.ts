import {
  type InputAnswer,
  type InputRequest,
  TimeoutError,
  type ToolCallInfo,
  type ToolResult,
  type ToolResume,
} from '@raf/core';
import { subscribeAbort, unsubscribeAbort } from '@raf/core/internal';
import type { CallWatchdog, WatchedCall } from './call-watchdog.js';
import { askForInput, type InputRequestHandler, type InputSink } from './input-requests.js';

/** The signal of a run nobody can cancel: watching it would only cost listeners. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** How a watched call ended when its own promise did not settle first. */
export const CALL_CANCELLED: unique symbol = Symbol('cancelled');
export const CALL_TIMED_OUT: unique symbol = Symbol('timed out');
export type WatchOutcome = ToolResult | typeof CALL_CANCELLED | typeof CALL_TIMED_OUT;

/** Where a running call's progress lines go (the loop streams them as `tool-progress` updates). */
export interface ProgressSink extends Partial<InputSink> {
  report(callId: string, name: string, message: string): void;
}

/**
 * One tool call's `ctx`: its ids, the run context, and a signal that fires when the run is
 * cancelled or the call times out. The signal and `reportProgress` are made on first read (an
 * `AbortSignal` costs microseconds to create; most calls never read it), so pass `ctx` on whole:
 * `{ ...ctx }` copies the fields but not those two.
 */
export class ToolCallContext implements ToolCallInfo, WatchedCall {
  readonly callId: string;
  readonly sessionId: string | undefined;
  readonly context: unknown;
  argumentsValidated: boolean | undefined;
  /** A human approved this call; `approvedTarget` is what they were shown. */
  approved: boolean | undefined;
  approvedTarget: string | undefined;
  /** The state and answers of a call that suspended the run earlier (`ToolSuspension`). */
  resume: ToolResume | undefined;
  /** Set when the call ran out of time. */
  timedOut = false;
  /** The run's `onInputRequest`: who answers `requestInput` (the executor sets it). */
  inputHandler: InputRequestHandler | undefined;
  private controller: AbortController | undefined;
  private progress: ((message: string) => void) | undefined;
  deadline = 0;
  private settle: ((outcome: WatchOutcome) => void) | undefined;
  private done = false;

  constructor(
    private readonly run: AbortSignal,
    private readonly name: string,
    callId: string,
    sessionId: string | undefined,
    context: unknown,
    readonly timeoutMs: number,
    private readonly sink: ProgressSink | undefined,
    private readonly watchdog: CallWatchdog,
  ) {
    this.callId = callId;
    this.sessionId = sessionId;
    this.context = context;
    this.argumentsValidated = undefined;
    this.approved = undefined;
    this.approvedTarget = undefined;
    this.resume = undefined;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.timedOut) this.controller.abort(this.timeoutReason());
      else if (this.run.aborted) this.controller.abort(this.run.reason);
    }
    return this.controller.signal;
  }

  get reportProgress(): (message: string) => void {
    this.progress ??= (message: string) => {
      if (!this.done) this.sink?.report(this.callId, this.name, String(message));
    };
    return this.progress;
  }

  get requestInput(): (request: InputRequest) => Promise<InputAnswer> {
    return (request) =>
      askForInput(
        this,
        request,
        this.sink?.push ? { push: (update) => !this.done && this.sink?.push?.(update) } : undefined,
        this.inputHandler,
      );
  }

  /**
   * Waits for the tool's answer, the run's cancellation or the timeout, whichever comes first.
   * A tool that ignores its signal cannot hold the run: its late result is dropped.
   */
  watch(work: Promise<ToolResult>): Promise<WatchOutcome> {
    return new Promise<WatchOutcome>((resolve, reject) => {
      this.settle = resolve;
      this.deadline = performance.now() + this.timeoutMs;
      this.watchdog.add(this, this.timeoutMs);
      // One listener on the run's signal however many calls run at once (a caller's shared signal).
      if (this.run !== NEVER_ABORTED) subscribeAbort(this.run, this);
      Promise.resolve(work).then(resolve, reject);
    });
  }

  /** The run's signal fired (an `EventListener` object: no closure per call). */
  handleEvent(): void {
    this.controller?.abort(this.run.reason);
    this.settle?.(CALL_CANCELLED);
  }

  expire(): void {
    this.timedOut = true;
    this.controller?.abort(this.timeoutReason());
    this.settle?.(CALL_TIMED_OUT);
  }

  /** Leaves the watchdog and the run listener; progress reported after this is dropped. */
  dispose(): void {
    this.watchdog.remove(this);
    if (this.settle && this.run !== NEVER_ABORTED) unsubscribeAbort(this.run, this);
    this.settle = undefined;
    this.done = true;
  }

  timeoutMessage(): string {
    return `Tool ${this.name} timed out after ${this.timeoutMs / 1000} s`;
  }

  private timeoutReason(): TimeoutError {
    return new TimeoutError(this.timeoutMessage(), { phase: 'tool', timeoutMs: this.timeoutMs });
  }
}
