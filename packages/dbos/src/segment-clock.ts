import { timerDelay } from '@raf/core/internal';

/**
 * A delegation child's clock for one segment of its loop (up to a pause or the end): its signal
 * aborts at `deadline`, but only once this execution of the workflow runs live. A replay (a
 * worker taking the child over) first goes through the steps already recorded, and the loop
 * stops at an aborted signal between steps: a deadline that passed meanwhile would end a
 * segment that, recorded, went on to a pause, and the replay would not give the recorded
 * result. So the abort waits for the first step whose body runs (`live()`): there the deadline
 * holds as it did for the recorded steps when they ran.
 */
// The reason `AbortSignal.timeout` gives: a model client tells a timeout from a cancel by it.
const timedOut = () => new DOMException('The operation timed out.', 'TimeoutError');

export class SegmentClock {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private expired = false;

  constructor(
    deadline: number,
    private readonly running: () => boolean,
  ) {
    this.timer = setTimeout(
      () => {
        this.expired = true;
        if (this.running()) this.controller.abort(timedOut());
      },
      timerDelay(deadline - Date.now()),
    );
    // Only the deadline of a run in progress: it keeps no process alive.
    this.timer.unref?.();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A step of this execution runs its body (not replayed): from here on the deadline holds. */
  live(): void {
    if (this.expired) this.controller.abort(timedOut());
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
