import type { ToolCall } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { LoopGuard } from './loop-guard.js';
import type { PreparedCall } from './tool-executor.js';

const round = (calls: [string, string][]): PreparedCall[] =>
  calls.map(
    ([name, args], i): PreparedCall => ({ call: { id: `c${i}`, name, arguments: args } as ToolCall }),
  );

describe('LoopGuard', () => {
  it('stops a call repeated with identical arguments past the limit, not one whose arguments changed', () => {
    const guard = new LoopGuard(2);
    expect(
      guard.check(
        round([
          ['a', '{"x":1}'],
          ['b', '{}'],
        ]),
      ),
    ).toBeUndefined();
    expect(
      guard.check(
        round([
          ['a', '{"x":1}'],
          ['b', '{"y":2}'],
        ]),
      ),
    ).toBeUndefined();
    const third = round([
      ['a', '{"x":1}'],
      ['b', '{}'],
    ]);
    expect(guard.check(third)).toBe(
      'loop guard stopped the run: a called with identical arguments 3 times in a row',
    );
    expect(third[0]!.preset).toMatchObject({ ok: false });
    expect(third[1]!.preset).toBeUndefined();
  });

  it('counts the same in a round of many calls (looked up by key) as in a round of a few', () => {
    // 40 distinct calls per round, the same ones each round: past the linear lookup's size.
    const many = (): PreparedCall[] =>
      round(Array.from({ length: 40 }, (_, i): [string, string] => [`t${i % 5}`, `{"i":${i}}`]));
    const guard = new LoopGuard(2);
    expect(guard.check(many())).toBeUndefined();
    expect(guard.check(many())).toBeUndefined();
    const third = many();
    expect(guard.check(third)).toMatch(/identical arguments 3 times in a row/);
    expect(third.every((p) => p.preset !== undefined)).toBe(true);
    // A call repeated inside one round is one streak, not two.
    const twice = new LoopGuard(1);
    expect(
      twice.check(
        round([
          ['a', '{}'],
          ['a', '{}'],
        ]),
      ),
    ).toBeUndefined();
    expect(twice.check(round([['a', '{}']]))).toMatch(/2 times in a row/);
  });
});
