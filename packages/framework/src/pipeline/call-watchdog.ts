import { MAX_TIMER_MS, timerDelay } from '@raf/core/internal';

// setTimeout takes at most 2^31-1 ms (more fires at once): a longer limit means none.

/** A call the watchdog can time out. */
export interface WatchedCall {
  /** `performance.now()` by which the call must have ended. */
  readonly deadline: number;
  expire(): void;
}

function fire(watchdog: CallWatchdog): void {
  watchdog.check();
}

/**
 * The time limits of one batch of calls on a single timer, armed for the earliest deadline and
 * moved as calls come and go. A timer per call cost measurably in the agent loop (each one
 * schedules libuv's timer anew); most calls end long before any limit.
 */
export class CallWatchdog {
  private readonly pending = new Set<WatchedCall>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private due = Number.POSITIVE_INFINITY;

  /** Watches a call; one whose limit is longer than a timer can wait is never timed out. */
  add(call: WatchedCall, timeoutMs: number): void {
    if (timeoutMs > MAX_TIMER_MS) return;
    this.pending.add(call);
    if (call.deadline < this.due) this.arm(call.deadline);
  }

  remove(call: WatchedCall): void {
    this.pending.delete(call);
  }

  /**
   * The batch is over but the run goes on: its calls leave, the timer stays. The next batch's
   * limits end later than the armed one (same limits, started later), so it finds the timer
   * armed early enough and arms none: no timer scheduled and cleared per round. A timer that
   * fires with nothing due re-arms for what is pending, if anything.
   */
  idle(): void {
    this.pending.clear();
  }

  /** Ends the watch (the batch or run is over): no timer is left behind. */
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = Number.POSITIVE_INFINITY;
    this.pending.clear();
  }

  /** Times out every call past its deadline, then waits for the next one. */
  check(): void {
    this.timer = undefined;
    this.due = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const call of this.pending) {
      if (call.deadline <= now) {
        this.pending.delete(call);
        call.expire();
      } else if (call.deadline < next) next = call.deadline;
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }

  private arm(due: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.due = due;
    this.timer = setTimeout(fire, timerDelay(due - performance.now()), this);
    this.timer.unref();
  }
}
