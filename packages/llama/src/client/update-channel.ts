import type { AgentResponseUpdate } from '@raf/core';

/**
 * Updates pushed by node-llama-cpp's callbacks, read by the client's generator in batches: all
 * that arrived while the consumer was busy go out together.
 */
export class UpdateChannel {
  private pending: AgentResponseUpdate[] = [];
  private waiter: (() => void) | undefined;

  push(update: AgentResponseUpdate): void {
    this.pending.push(update);
    this.wake();
  }

  wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** What arrived so far, in an array the caller owns. */
  drain(): AgentResponseUpdate[] {
    const batch = this.pending;
    this.pending = [];
    return batch;
  }

  /** Resolves at the next `push` or `wake` (call it only after `drain` came back empty). */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}
