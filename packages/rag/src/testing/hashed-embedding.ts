/** FNV-1a, 32 bits: a fast, stable string hash. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A deterministic stand-in for an embedding model: the words of the text and their character
 * trigrams, hashed into `dimension` signed buckets with sublinear weights, unit length. Similar
 * wording gives similar vectors (trigrams make `configure` and `configuration` neighbours), which
 * is all a test of the vector path needs, with no model to download.
 */
export function hashedEmbedding(text: string, dimension = 384): number[] {
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    add(`w:${word}`, 1);
    const padded = `#${word}#`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.25);
  }
  const vector = new Array<number>(dimension).fill(0);
  for (const [feature, count] of counts) {
    const hash = fnv1a(feature);
    const at = hash % dimension;
    vector[at] = (vector[at] as number) + (hash & 0x80000000 ? -1 : 1) * Math.log1p(count);
  }
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  return norm > 0 ? vector.map((v) => v / norm) : vector;
}
