type Listener = () => void;

/**
 * A cheap abort handle for one request. undici accepts any object with `on`/`once` and
 * `removeListener` as `signal`; this one keeps a plain array of listeners, which costs far less
 * per request than an `AbortSignal` (an EventTarget) or an `EventEmitter`.
 */
export class AbortHandle {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Listener[] | undefined;

  on(_event: 'abort', listener: Listener): this {
    if (this.listeners === undefined) this.listeners = [listener];
    else this.listeners.push(listener);
    return this;
  }

  /** Same as `on`: a handle aborts once, so every listener runs at most once. */
  once(event: 'abort', listener: Listener): this {
    return this.on(event, listener);
  }

  removeListener(_event: 'abort', listener: Listener): this {
    const listeners = this.listeners;
    if (listeners !== undefined) {
      const index = listeners.lastIndexOf(listener);
      if (index !== -1) listeners.splice(index, 1);
    }
    return this;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new Error('aborted');
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }
}
