type AbortListener = ((event: Event) => void) | { handleEvent(event: Event): void };

/** The requests in flight under each caller's signal: one listener per signal, not one per call. */
const inFlight = new WeakMap<AbortSignal, Set<RequestSignal>>();

function requestsUnder(parent: AbortSignal): Set<RequestSignal> {
  let requests = inFlight.get(parent);
  if (!requests) {
    const created = new Set<RequestSignal>();
    requests = created;
    inFlight.set(parent, created);
    parent.addEventListener(
      'abort',
      () => {
        for (const request of created) request.fire();
        created.clear();
      },
      { once: true },
    );
  }
  return requests;
}

/**
 * What a request hands the SDK as its `signal`: a view of the caller's signal. The SDK adds a
 * listener to a request's signal and never removes it, so a run's signal (or the tool loop's
 * never-aborted one) would collect one per call; and adding a listener to an AbortSignal costs
 * more CPU than the rest of the call's client side (measured: 5 of ~35 µs). The SDK uses
 * `aborted`, `reason`, `throwIfAborted()` and `addEventListener('abort')`.
 */
export class RequestSignal {
  private readonly listeners: AbortListener[] = [];
  private readonly requests: Set<RequestSignal> | undefined;

  constructor(private readonly parent: AbortSignal) {
    if (!parent.aborted) {
      this.requests = requestsUnder(parent);
      this.requests.add(this);
    }
  }

  get aborted(): boolean {
    return this.parent.aborted;
  }

  get reason(): unknown {
    return this.parent.reason;
  }

  throwIfAborted(): void {
    this.parent.throwIfAborted();
  }

  addEventListener(type: string, listener: AbortListener): void {
    if (type === 'abort') this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: AbortListener): void {
    const at = type === 'abort' ? this.listeners.indexOf(listener) : -1;
    if (at >= 0) this.listeners.splice(at, 1);
  }

  /** The caller's signal fired. */
  fire(): void {
    const event = new Event('abort');
    for (const listener of this.listeners.splice(0)) {
      if (typeof listener === 'function') listener(event);
      else listener.handleEvent(event);
    }
  }

  /** The request ended. */
  release(): void {
    this.requests?.delete(this);
  }
}
