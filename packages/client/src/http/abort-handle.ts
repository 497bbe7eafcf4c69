import { EventEmitter } from 'node:events';

/**
 * A cheap abort handle for one request. undici accepts an EventEmitter as `signal`, and
 * subscribing to one costs far less per request than an `AbortSignal` (an EventTarget).
 */
export class AbortHandle extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new Error('aborted');
    this.emit('abort');
  }
}
