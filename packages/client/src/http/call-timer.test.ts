import { TimeoutError } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { AbortHandle } from './abort-handle.js';
import { CallTimer } from './call-timer.js';

const describeTimeout = (phase: string, ms: number) => `${phase} after ${ms} ms`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the abort reason and the time it took, or 'none' after `waitMs`. */
function aborted(handle: AbortHandle, waitMs: number): Promise<{ reason: unknown; ms: number } | 'none'> {
  const started = performance.now();
  return new Promise((resolve) => {
    const timeout = setTimeout(() => resolve('none'), waitMs);
    handle.on('abort', () => {
      clearTimeout(timeout);
      resolve({ reason: handle.reason, ms: performance.now() - started });
    });
  });
}

describe('CallTimer', () => {
  it('aborts the phase target with a TimeoutError naming the phase, not before its time', async () => {
    const timer = new CallTimer(describeTimeout);
    const attempt = new AbortHandle();
    const result = aborted(attempt, 2000);
    timer.startPhase(attempt, 'firstChunk', 60);
    const outcome = await result;
    timer.stop();
    expect(outcome).not.toBe('none');
    const { reason, ms } = outcome as { reason: TimeoutError; ms: number };
    expect(TimeoutError.isInstance(reason)).toBe(true);
    expect(reason).toMatchObject({ phase: 'firstChunk', timeoutMs: 60, message: 'firstChunk after 60 ms' });
    expect(ms).toBeGreaterThanOrEqual(55);
  });

  it('starts the countdown again on restartPhase, so only a silence of the full length aborts', async () => {
    const timer = new CallTimer(describeTimeout);
    const attempt = new AbortHandle();
    timer.startPhase(attempt, 'idle', 80);
    for (let i = 0; i < 5; i++) {
      await sleep(30);
      timer.restartPhase();
    }
    // 150 ms have passed, more than the phase, yet never 80 ms without a restart.
    expect(attempt.aborted).toBe(false);
    const outcome = await aborted(attempt, 2000);
    timer.stop();
    expect(outcome).toMatchObject({ reason: { phase: 'idle' } });
    expect((outcome as { ms: number }).ms).toBeGreaterThanOrEqual(40);
  });

  it('aborts the total target when the call runs out of time, whatever the phases do', async () => {
    const timer = new CallTimer(describeTimeout);
    const total = new AbortHandle();
    const attempt = new AbortHandle();
    const result = aborted(total, 2000);
    timer.startPhase(attempt, 'idle', 50);
    timer.startTotal(total, 120);
    const restarts = setInterval(() => timer.restartPhase(), 15);
    const outcome = await result;
    clearInterval(restarts);
    timer.stop();
    expect(outcome).toMatchObject({ reason: { phase: 'total', timeoutMs: 120 } });
    expect((outcome as { ms: number }).ms).toBeGreaterThanOrEqual(110);
    expect(attempt.aborted).toBe(false);
  });

  it('moves the wake-up earlier when a shorter phase starts after a longer deadline', async () => {
    const timer = new CallTimer(describeTimeout);
    const total = new AbortHandle();
    const attempt = new AbortHandle();
    timer.startTotal(total, 5000);
    const outcome = aborted(attempt, 2000);
    timer.startPhase(attempt, 'firstChunk', 40);
    expect(await outcome).toMatchObject({ reason: { phase: 'firstChunk' } });
    expect(total.aborted).toBe(false);
    timer.stop();
  });

  it('aborts nothing after endPhase (phase) or stop (everything), and has no limit for 0 or Infinity', async () => {
    const timer = new CallTimer(describeTimeout);
    const total = new AbortHandle();
    const attempt = new AbortHandle();
    timer.startPhase(attempt, 'idle', 30);
    timer.endPhase();
    timer.startTotal(total, 60);
    const totalOutcome = aborted(total, 2000);
    expect(await aborted(attempt, 120)).toBe('none');
    expect(await totalOutcome).toMatchObject({ reason: { phase: 'total' } });

    const other = new CallTimer(describeTimeout);
    const quiet = new AbortHandle();
    other.startTotal(quiet, 40);
    other.startPhase(quiet, 'idle', 30);
    other.stop();
    other.startPhase(quiet, 'idle', 0);
    other.startPhase(quiet, 'idle', Number.POSITIVE_INFINITY);
    expect(await aborted(quiet, 120)).toBe('none');
  });
});
