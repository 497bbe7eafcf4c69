/**
 * Words that match nearly every chunk: leaving them out of the OR query keeps it fast on a large
 * index and changes no ranking (their BM25 weight is close to zero anyway).
 */
const STOPWORDS = new Set(
  (
    'a an and are as at be but by can do does for from has have how i if in into is it its me my of on or ' +
    'our so that the their then there these they this to was we what when where which who why will with ' +
    'you your about should would could'
  ).split(' '),
);

/** At most this many distinct terms reach FTS5; a pasted page needs no more to find its matches. */
const MAX_TERMS = 24;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/**
 * CJK runs as overlapping character pairs (`知识库` → `知识 识库`), as Lucene's CJK analyzer does:
 * FTS5's unicode61 tokenizer would take a whole unspaced sentence for one word. Applied to what is
 * indexed and to queries alike.
 */
export function cjkBigrams(text: string): string {
  return text.replace(CJK, (run) => {
    const chars = Array.from(run);
    if (chars.length < 2) return run;
    return ` ${chars
      .slice(0, -1)
      .map((c, i) => c + chars[i + 1])
      .join(' ')} `;
  });
}

/** The words of a text, lower-cased (letters and digits of any script). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/**
 * An FTS5 query for free text: its distinct words, each quoted (no FTS5 syntax can leak in from a
 * user message), joined with OR so BM25 ranks chunks by how many and how rare the matched words are.
 */
export function ftsQuery(text: string): string {
  const terms: string[] = [];
  const seen = new Set<string>();
  const all = words(cjkBigrams(text));
  const kept = all.filter((w) => !STOPWORDS.has(w));
  for (const word of kept.length > 0 ? kept : all) {
    if (seen.has(word)) continue;
    seen.add(word);
    terms.push(`"${word.replace(/"/g, '""')}"`);
    if (terms.length >= MAX_TERMS) break;
  }
  return terms.join(' OR ');
}
