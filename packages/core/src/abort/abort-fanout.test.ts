import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { subscribeAbort, unsubscribeAbort } from './abort-fanout.js';

describe('subscribeAbort', () => {
  it('puts one listener on the signal for any number of subscribers and takes it off with the last', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const subscribers = Array.from({ length: 50 }, (_, i) => () => calls.push(i));
    for (const s of subscribers) subscribeAbort(controller.signal, s);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const s of subscribers.slice(0, 49)) unsubscribeAbort(controller.signal, s);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    unsubscribeAbort(controller.signal, subscribers[49]!);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    expect(calls).toEqual([]);
  });

  it('calls each subscriber once on abort (functions and handleEvent objects), then forgets them', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    subscribeAbort(controller.signal, () => calls.push('f'));
    const object = { handleEvent: () => calls.push('o') };
    subscribeAbort(controller.signal, object);
    controller.abort();
    expect(calls).toEqual(['f', 'o']);
    unsubscribeAbort(controller.signal, object);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
