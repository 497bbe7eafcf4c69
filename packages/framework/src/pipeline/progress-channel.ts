import type { AgentResponseUpdate } from '@raf/core';
import type { ProgressSink } from './tool-call-context.js';

export const PROGRESS: unique symbol = Symbol('progress');

/**
 * Progress lines (and questions, with their warnings) of the running calls, handed to the loop
 * while it waits for the batch: the loop yields them as updates before the batch ends.
 */
export class ProgressChannel implements ProgressSink {
  private queue: AgentResponseUpdate[] = [];
  private wake: (() => void) | undefined;

  report(callId: string, name: string, message: string): void {
    this.push({ type: 'tool-progress', callId, name, message });
  }

  push(update: AgentResponseUpdate): void {
    this.queue.push(update);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** The batch's results, or `PROGRESS` as soon as a line is waiting (read it with `drain`). */
  next<T>(work: Promise<T>): Promise<T | typeof PROGRESS> {
    if (this.queue.length > 0) return Promise.resolve(PROGRESS);
    return new Promise<T | typeof PROGRESS>((resolve, reject) => {
      this.wake = () => resolve(PROGRESS);
      work.then(resolve, reject);
    });
  }

  /** The waiting lines, in a new array the caller owns. */
  drain(): AgentResponseUpdate[] {
    const lines = this.queue;
    this.queue = [];
    this.wake = undefined;
    return lines;
  }
}
