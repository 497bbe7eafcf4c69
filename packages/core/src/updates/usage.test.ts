import { describe, expect, it } from 'vitest';
import { addUsage, cacheHitRatio } from './usage.js';

describe('usage', () => {
  it('computes the cache hit ratio like the upstream', () => {
    expect(cacheHitRatio({ promptTokens: 100, completionTokens: 0, totalTokens: 100 })).toBe(0);
    expect(
      cacheHitRatio({
        promptTokens: 100,
        completionTokens: 0,
        totalTokens: 100,
        promptCacheHitTokens: 30,
        promptCacheMissTokens: 90,
      }),
    ).toBe(0.25);
    expect(
      cacheHitRatio({ promptTokens: 100, completionTokens: 0, totalTokens: 100, promptCacheHitTokens: 40 }),
    ).toBe(0.4);
  });

  it('adds usages, keeping optional counters only when reported', () => {
    const a = { promptTokens: 10, completionTokens: 5, totalTokens: 15, reasoningTokens: 2 };
    const b = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
    expect(addUsage(a, b)).toEqual({
      promptTokens: 11,
      completionTokens: 6,
      totalTokens: 17,
      reasoningTokens: 2,
    });
    expect(addUsage(undefined, b)).toEqual(b);
  });
});
