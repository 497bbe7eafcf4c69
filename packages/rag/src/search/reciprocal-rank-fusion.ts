/** The usual constant of reciprocal-rank fusion (Cormack et al., 2009). */
export const RRF_K = 60;

/**
 * Reciprocal-rank fusion of ranked id lists: each id scores Σ 1 / (k + rank) over the lists
 * it appears in (rank from 1). Needs no score calibration between BM25 and cosine similarity.
 */
export function reciprocalRankFusion(
  rankings: readonly (readonly number[])[],
  k = RRF_K,
): { id: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, index) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1));
    });
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}
