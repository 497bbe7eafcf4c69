import { TimeoutError, type TimeoutPhase } from '@raf/core';

/** What a deadline aborts: the call's `AbortHandle` (total) or the current attempt's (phases). */
interface Target {
  abort(reason?: unknown): void;
}

function isLimit(ms: number | undefined): ms is number {
  return ms !== undefined && ms > 0 && Number.isFinite(ms);
}

/**
 * The timeouts of one call on one Node timer: the call's whole deadline (`total`) and the current
 * phase's (`firstChunk` until an attempt's first chunk, `idle` between chunks), each aborting its
 * target with a `TimeoutError` naming the phase. Starting or restarting a phase writes a time
 * stamp; the timer is re-armed only when a deadline moves earlier than the moment it fires, and
 * when it fires before a deadline that moved later, it sleeps again for the rest. One
 * `setTimeout` per call instead of one per phase and attempt (plus a refresh per chunk): the
 * timers were ~6% of a short streamed answer's CPU, most of it compiling Node's timer code late.
 */
export class CallTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private firesAt = Number.POSITIVE_INFINITY;
  private total: Target | undefined;
  private totalAt = Number.POSITIVE_INFINITY;
  private totalMs = 0;
  private phaseTarget: Target | undefined;
  private phaseAt = Number.POSITIVE_INFINITY;
  private phaseMs = 0;
  private phase: TimeoutPhase = 'idle';

  constructor(private readonly describe: (phase: TimeoutPhase, ms: number) => string) {}

  /** Aborts `target` once `ms` have passed (no limit when `ms` is undefined, ≤ 0 or infinite). */
  startTotal(target: Target, ms: number | undefined): void {
    if (!isLimit(ms)) return;
    this.total = target;
    this.totalMs = ms;
    this.totalAt = performance.now() + ms;
    this.schedule(this.totalAt);
  }

  /** Replaces the current phase: aborts `target` when `ms` pass without a `restartPhase`. */
  startPhase(target: Target, phase: TimeoutPhase, ms: number | undefined): void {
    if (!isLimit(ms)) {
      this.endPhase();
      return;
    }
    this.phaseTarget = target;
    this.phase = phase;
    this.phaseMs = ms;
    this.phaseAt = performance.now() + ms;
    this.schedule(this.phaseAt);
  }

  /** Data arrived: the current phase's countdown starts again. */
  restartPhase(): void {
    if (this.phaseTarget !== undefined) this.phaseAt = performance.now() + this.phaseMs;
  }

  endPhase(): void {
    this.phaseTarget = undefined;
    this.phaseAt = Number.POSITIVE_INFINITY;
  }

  /** Ends every deadline and frees the timer. */
  stop(): void {
    this.endPhase();
    this.total = undefined;
    this.totalAt = Number.POSITIVE_INFINITY;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.firesAt = Number.POSITIVE_INFINITY;
  }

  private schedule(at: number): void {
    if (at >= this.firesAt) return; // the timer fires earlier and sleeps again from there
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.firesAt = at;
    this.timer = setTimeout(this.fire, Math.max(1, Math.ceil(at - performance.now())));
    this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.firesAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const total = this.total;
    if (total !== undefined && now >= this.totalAt) {
      const ms = this.totalMs;
      this.stop();
      total.abort(new TimeoutError(this.describe('total', ms), { phase: 'total', timeoutMs: ms }));
      return;
    }
    const target = this.phaseTarget;
    if (target !== undefined && now >= this.phaseAt) {
      const { phase, phaseMs: ms } = this;
      this.endPhase();
      target.abort(new TimeoutError(this.describe(phase, ms), { phase, timeoutMs: ms }));
    }
    const next = Math.min(this.totalAt, this.phaseAt);
    if (next !== Number.POSITIVE_INFINITY) this.schedule(next);
  };
}
