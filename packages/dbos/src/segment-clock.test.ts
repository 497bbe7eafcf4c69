import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SegmentClock } from './segment-clock.js';

/**
 * A delegation child's clock counts only once its execution runs live: a replay of recorded
 * steps past the deadline is not cut short, its first live step is.
 */
describe('a segment clock', () => {
  it('aborts at the deadline of a live execution', async () => {
    const clock = new SegmentClock(Date.now() + 50, () => true);
    expect(clock.signal.aborted).toBe(false);
    await sleep(120);
    expect(clock.signal.aborted).toBe(true);
    expect((clock.signal.reason as DOMException).name).toBe('TimeoutError');
    clock.dispose();
  });

  it('past the deadline while replaying, it aborts at the first live step, not before', async () => {
    let live = false;
    const clock = new SegmentClock(Date.now() - 1000, () => live);
    await sleep(30);
    expect(clock.signal.aborted).toBe(false);
    live = true;
    clock.live();
    expect(clock.signal.aborted).toBe(true);
    clock.dispose();
  });

  it('a live step before the deadline leaves it running; disposed, it never aborts', async () => {
    const clock = new SegmentClock(Date.now() + 40, () => true);
    clock.live();
    expect(clock.signal.aborted).toBe(false);
    clock.dispose();
    await sleep(80);
    expect(clock.signal.aborted).toBe(false);
  });
});
