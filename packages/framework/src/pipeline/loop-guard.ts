import { toolFailure } from '@raf/core';
import type { PreparedCall } from './tool-executor.js';

/**
 * Stops a model that repeats the identical call (same tool, same arguments) round after round.
 * The call over the limit is not executed; its result says why, and the run ends.
 */
export class LoopGuard {
  private streaks = new Map<string, number>();

  constructor(private readonly maxIdenticalCalls: number) {}

  /** Marks calls over the limit in place; returns a warning when it did. */
  check(prepared: PreparedCall[]): string | undefined {
    const next = new Map<string, number>();
    let warning: string | undefined;
    for (const item of prepared) {
      const key = `${item.call.name}\u0000${item.call.arguments}`;
      const streak = (this.streaks.get(key) ?? 0) + 1;
      next.set(key, Math.max(next.get(key) ?? 0, streak));
      if (streak > this.maxIdenticalCalls && !item.preset) {
        item.preset = toolFailure(
          `Loop guard: ${item.call.name} was called with identical arguments ${streak} times in a row; not executed`,
        );
        warning ??= `loop guard stopped the run: ${item.call.name} called with identical arguments ${streak} times in a row`;
      }
    }
    this.streaks = next;
    return warning;
  }
}
