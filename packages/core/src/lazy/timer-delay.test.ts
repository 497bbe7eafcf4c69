import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, timerDelay } from './timer-delay.js';

describe('timerDelay', () => {
  it('keeps a delay a timer can hold, and a negative or NaN one fires now', () => {
    expect(timerDelay(1500)).toBe(1500);
    expect(timerDelay(-5)).toBe(0);
    expect(timerDelay(Number.NaN)).toBe(0);
  });

  it('holds a timeout past 24.8 days at the longest wait instead of firing at once', async () => {
    // `timeoutSecs: 1e7` (116 days): Node fired such a timer after 1 ms, timing the call out at once.
    expect(timerDelay(1e10)).toBe(MAX_TIMER_MS);
    const signal = AbortSignal.timeout(timerDelay(1e10));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(signal.aborted).toBe(false);
  });
});
