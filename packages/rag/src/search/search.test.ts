import { describe, expect, it } from 'vitest';
import { nearestRows, normalize } from './exact-vector-search.js';
import { cjkBigrams, ftsQuery } from './fts-query.js';
import { reciprocalRankFusion } from './reciprocal-rank-fusion.js';

describe('nearestRows', () => {
  it('finds the closest unit vectors by cosine, best first, for any dimension (also not a multiple of 4)', () => {
    for (const dimension of [3, 8, 13]) {
      const rows = Array.from({ length: 50 }, (_, r) =>
        normalize(Array.from({ length: dimension }, (_, i) => Math.sin(r * 7 + i * 3))),
      );
      const matrix = new Float32Array(rows.flatMap((v) => [...v]));
      const query = rows[17] as Float32Array;
      const best = nearestRows(matrix, dimension, query, 5);
      const expected = rows
        .map((v, row) => ({ row, score: v.reduce((s, x, i) => s + x * (query[i] as number), 0) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 5);
      expect(best.map((b) => b.row)).toEqual(expected.map((e) => e.row));
      expect(best[0]).toMatchObject({ row: 17 });
      expect(best[0]?.score).toBeCloseTo(1, 5);
    }
  });

  it('returns fewer rows than the limit when there are fewer, and nothing for an empty matrix', () => {
    expect(
      nearestRows(new Float32Array([1, 0, 0, 1]), 2, new Float32Array([1, 0]), 10).map((r) => r.row),
    ).toEqual([0, 1]);
    expect(nearestRows(new Float32Array(), 0, new Float32Array(), 3)).toEqual([]);
  });
});

describe('ftsQuery', () => {
  it('quotes every word (no FTS5 syntax leaks in), drops function words, keeps each word once', () => {
    expect(ftsQuery('How do I use "NEAR" AND foo* in the the config?')).toBe(
      '"use" OR "near" OR "foo" OR "config"',
    );
    expect(ftsQuery('the')).toBe('"the"');
    expect(ftsQuery('  ')).toBe('');
  });
});

describe('cjkBigrams', () => {
  it('splits CJK runs into overlapping pairs and leaves other text alone', () => {
    expect(cjkBigrams('退货政策 refund policy')).toBe(' 退货 货政 政策  refund policy');
    expect(ftsQuery('如何申请退款？')).toBe('"如何" OR "何申" OR "申请" OR "请退" OR "退款"');
    expect(cjkBigrams('字')).toBe('字');
  });
});

describe('reciprocalRankFusion', () => {
  it('scores ids by Σ 1/(k + rank) over the lists', () => {
    expect(
      reciprocalRankFusion(
        [
          [1, 2, 3],
          [3, 1],
        ],
        60,
      ),
    ).toEqual([
      { id: 1, score: 1 / 61 + 1 / 62 },
      { id: 3, score: 1 / 63 + 1 / 61 },
      { id: 2, score: 1 / 62 },
    ]);
  });

  it('weighs each list: a weight of 0.5 halves what its ranks add', () => {
    expect(reciprocalRankFusion([[1], [2, 1]], 10, [1, 0.5])).toEqual([
      { id: 1, score: 1 / 11 + 0.5 / 12 },
      { id: 2, score: 0.5 / 11 },
    ]);
  });
});
