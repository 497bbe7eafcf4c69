/** A function, or an object whose `handleEvent` is called (no closure per subscriber). */
export type AbortSubscriber = (() => void) | { handleEvent(): void };

interface Fanout {
  subscribers: Set<AbortSubscriber>;
  dispatch: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `subscriber` once when `signal` aborts, like `addEventListener('abort', …, { once: true })`,
 * but however many subscribe at once the signal carries ONE listener: a caller's long-lived signal
 * shared by 200 concurrent runs gets no `MaxListenersExceededWarning`. Nothing is called for a
 * signal that already aborted (check `aborted` first). `unsubscribeAbort` removes it; the last one
 * to leave takes the listener off the signal.
 */
export function subscribeAbort(signal: AbortSignal, subscriber: AbortSubscriber): void {
  let fanout = fanouts.get(signal);
  if (!fanout) {
    const subscribers = new Set<AbortSubscriber>();
    const dispatch = () => {
      fanouts.delete(signal);
      for (const each of subscribers) {
        if (typeof each === 'function') each();
        else each.handleEvent();
      }
      subscribers.clear();
    };
    fanout = { subscribers, dispatch };
    fanouts.set(signal, fanout);
    signal.addEventListener('abort', dispatch, { once: true });
  }
  fanout.subscribers.add(subscriber);
}

export function unsubscribeAbort(signal: AbortSignal, subscriber: AbortSubscriber): void {
  const fanout = fanouts.get(signal);
  if (!fanout?.subscribers.delete(subscriber) || fanout.subscribers.size > 0) return;
  fanouts.delete(signal);
  signal.removeEventListener('abort', fanout.dispatch);
}
