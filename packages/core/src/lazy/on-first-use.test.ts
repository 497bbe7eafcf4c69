import { describe, expect, it } from 'vitest';
import { onFirstUse } from './on-first-use.js';

describe('onFirstUse', () => {
  it('builds nothing until read, then once, and keeps the value (undefined too)', () => {
    let builds = 0;
    const value = onFirstUse(() => {
      builds++;
      return builds === 1 ? undefined : 'second';
    });
    expect(builds).toBe(0);
    expect(value()).toBeUndefined();
    expect(value()).toBeUndefined();
    expect(builds).toBe(1);
  });

  it('builds again after a throw (nothing was kept)', () => {
    let builds = 0;
    const value = onFirstUse(() => {
      builds++;
      if (builds === 1) throw new Error('first');
      return builds;
    });
    expect(() => value()).toThrow('first');
    expect(value()).toBe(2);
    expect(value()).toBe(2);
  });
});
