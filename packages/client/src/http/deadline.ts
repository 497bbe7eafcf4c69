import { TimeoutError, type TimeoutPhase } from '@raf/core';

/**
 * One restartable timer that aborts a controller with a `TimeoutError` naming its phase.
 * `refresh()` is cheap (it re-arms the same Node timer), so it can run per chunk.
 */
export class Deadline {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly controller: { abort(reason?: unknown): void },
    private readonly describe: (phase: TimeoutPhase, ms: number) => string,
  ) {}

  arm(phase: TimeoutPhase, ms: number | undefined): void {
    this.clear();
    if (ms === undefined || ms <= 0 || !Number.isFinite(ms)) return;
    this.timer = setTimeout(() => {
      this.controller.abort(new TimeoutError(this.describe(phase, ms), { phase, timeoutMs: ms }));
    }, ms);
    this.timer.unref?.();
  }

  refresh(): void {
    this.timer?.refresh();
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
