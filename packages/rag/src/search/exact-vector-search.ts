/**
 * The `limit` rows of `matrix` (unit vectors, `dimension` wide) closest to `query` by cosine
 * similarity (a dot product, as both sides are unit length), best first. Exact: every row is
 * scored, which stays within a few milliseconds up to tens of thousands of 384-d vectors.
 */
export function nearestRows(
  matrix: Float32Array,
  dimension: number,
  query: Float32Array,
  limit: number,
): { row: number; score: number }[] {
  const rows = dimension === 0 ? 0 : matrix.length / dimension;
  const best: { row: number; score: number }[] = [];
  let floor = Number.NEGATIVE_INFINITY;
  for (let row = 0; row < rows; row++) {
    const offset = row * dimension;
    let score = 0;
    for (let i = 0; i < dimension; i++) score += (matrix[offset + i] as number) * (query[i] as number);
    if (best.length >= limit && score <= floor) continue;
    // Insertion into a short sorted list: `limit` is small (tens), so this beats a heap.
    let at = best.length;
    while (at > 0 && (best[at - 1] as { score: number }).score < score) at--;
    best.splice(at, 0, { row, score });
    if (best.length > limit) best.pop();
    if (best.length >= limit) floor = (best[best.length - 1] as { score: number }).score;
  }
  return best;
}

/** Scales a vector to unit length (a zero vector stays zero). */
export function normalize(vector: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(vector);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += (out[i] as number) ** 2;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) / norm;
  return out;
}
