import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CallWatchdog, type WatchedCall } from './call-watchdog.js';

function call(name: string, timeoutMs: number, expired: string[]): WatchedCall & { timeoutMs: number } {
  return { deadline: performance.now() + timeoutMs, timeoutMs, expire: () => expired.push(name) };
}

describe('CallWatchdog', () => {
  it('times out each call at its own deadline on one timer, in deadline order', async () => {
    const watchdog = new CallWatchdog();
    const expired: string[] = [];
    const slow = call('slow', 120, expired);
    const fast = call('fast', 40, expired);
    const done = call('done', 60, expired);
    for (const c of [slow, fast, done]) watchdog.add(c, c.timeoutMs);
    watchdog.remove(done); // finished in time
    await sleep(80);
    expect(expired).toEqual(['fast']);
    await sleep(120);
    expect(expired).toEqual(['fast', 'slow']);
  });

  it('leaves no timer behind when stopped, and ignores limits no timer can wait for', async () => {
    const watchdog = new CallWatchdog();
    const expired: string[] = [];
    watchdog.add(call('a', 30, expired), 30);
    watchdog.add(call('forever', Number.POSITIVE_INFINITY, expired), Number.POSITIVE_INFINITY);
    watchdog.stop();
    await sleep(80);
    expect(expired).toEqual([]);
  });
});
