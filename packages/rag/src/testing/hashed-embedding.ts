/** FNV-1a, 32 bits: a fast, stable string hash. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Function words: a real model gives them little weight; a hash would give them as much as any word. */
const STOPWORDS = new Set(
  (
    'a an and are as at be but by can do does for from has have how i if in into is it its me my not of on or ' +
    'our so that the their then there these they this to was we what when where which who why will with you your'
  ).split(' '),
);

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
    if (STOPWORDS.has(word)) continue;
    add(`w:${word}`, 1);
    // The trigrams of a word weigh half as much as the word itself, however long it is.
    const padded = `#${word}#`;
    const trigrams = padded.length - 2;
    for (let i = 0; i < trigrams; i++) add(`t:${padded.slice(i, i + 3)}`, 0.5 / trigrams);
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
