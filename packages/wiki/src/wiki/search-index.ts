import type MiniSearch from 'minisearch';
import type { WikiPage } from '../load/wiki-page.js';

export type WikiSearchHit = {
  id: string;
  title: string;
  tags: string[];
  score: number;
  snippet: string;
};

type Doc = { id: string; title: string; tags: string; content: string; space: string; type: string };

const toDoc = (page: WikiPage): Doc => ({
  id: page.id,
  title: page.title,
  tags: page.tags.join(' '),
  content: page.content,
  space: page.space,
  type: page.type ?? '',
});

/** Around the first query word found: what a search result shows of a page. */
export function snippet(content: string, query: string, width = 240): string {
  const text = content.replace(/\s+/g, ' ').trim();
  const lower = text.toLowerCase();
  const words = query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  const at =
    words
      .map((w) => lower.indexOf(w))
      .filter((i) => i >= 0)
      .sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - width / 3);
  const piece = text.slice(start, start + width);
  return `${start > 0 ? '…' : ''}${piece}${start + width < text.length ? '…' : ''}`;
}

/** Characters handed to the word segmenter at once. */
const PIECE = 2048;

/**
 * The text cut at white space into pieces of about `PIECE` characters. V8's segmenter copies the
 * whole input into every segment it yields (`segment.input`), so segmenting a page in one go is
 * quadratic in its length (a 172 KB page took 7–30 s); piece by piece it is linear. A cut falls on
 * white space, where no word can span; text without any (long CJK runs) is cut at `2 × PIECE`.
 */
export function* pieces(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > 2 * PIECE) {
    let end = start + PIECE;
    while (end < start + 2 * PIECE && !/\s/.test(text[end] as string)) end++;
    yield text.slice(start, end);
    start = end;
  }
  yield text.slice(start);
}

/** Full-text search over titles (boosted), tags and content with MiniSearch (BM25, prefix and fuzzy). */
export class WikiSearchIndex {
  private constructor(private readonly index: MiniSearch<Doc>) {}

  static async create(): Promise<WikiSearchIndex> {
    // Loaded when a wiki is first used: an agent that never reaches its wiki never pays for it.
    const { default: MiniSearchClass } = await import('minisearch');
    // Words as ICU finds them: Chinese and Japanese have no spaces between words, which
    // MiniSearch's default (split on spaces and punctuation) would need.
    const words = new Intl.Segmenter(undefined, { granularity: 'word' });
    const tokenize = (text: string) => {
      const tokens: string[] = [];
      for (const piece of pieces(text))
        for (const s of words.segment(piece)) if (s.isWordLike) tokens.push(s.segment);
      return tokens;
    };
    return new WikiSearchIndex(
      new MiniSearchClass<Doc>({
        tokenize,
        fields: ['title', 'tags', 'content', 'space', 'type'],
        storeFields: [],
        searchOptions: {
          boost: { title: 3, tags: 2 },
          prefix: (term) => term.length > 3,
          fuzzy: (term) => (term.length > 5 ? 0.2 : false),
        },
      }),
    );
  }

  put(page: WikiPage): void {
    if (this.index.has(page.id)) this.index.replace(toDoc(page));
    else this.index.add(toDoc(page));
  }

  remove(id: string): void {
    if (this.index.has(id)) this.index.discard(id);
  }

  search(query: string, limit: number, pages: ReadonlyMap<string, WikiPage>): WikiSearchHit[] {
    return this.index
      .search(query, { combineWith: 'OR' })
      .slice(0, limit)
      .flatMap((r) => {
        const page = pages.get(String(r.id));
        return page
          ? [
              {
                id: page.id,
                title: page.title,
                tags: page.tags,
                score: r.score,
                snippet: snippet(page.content, query),
              },
            ]
          : [];
      });
  }
}
