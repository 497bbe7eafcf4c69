import type { WikiPage } from '../load/wiki-page.js';

/** A page's place in the graph: the pages it links to, the pages that link to it, links to nothing. */
export type PageLinks = {
  links: string[];
  backlinks: string[];
  unresolved: string[];
};

export type RelatedConcept = {
  id: string;
  title: string;
  /** Why: `links to`, `linked from`, `shared tag x`, `via y` (two links away). */
  reasons: string[];
  score: number;
};

const key = (text: string) =>
  text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/[^\p{L}\p{N}/.-]+/gu, '');

/**
 * The `[[link]]` graph of a wiki. A link target names a page by id (`space/page`, `notes/a`), by
 * its last path segment, or by title, ignoring case, spaces versus dashes and punctuation; the
 * page in the linking page's own space wins a tie. Rebuilt from the pages on each change: cheap
 * at wiki sizes (thousands of pages).
 */
export class LinkGraph {
  private readonly out = new Map<string, Set<string>>();
  private readonly into = new Map<string, Set<string>>();
  private readonly unresolved = new Map<string, string[]>();
  private readonly byKey = new Map<string, string[]>();

  constructor(private readonly pages: ReadonlyMap<string, WikiPage>) {
    for (const page of pages.values()) {
      for (const name of new Set([page.id, page.id.split('/').pop() as string, page.title])) {
        const k = key(name);
        const list = this.byKey.get(k) ?? [];
        if (!list.includes(page.id)) list.push(page.id);
        this.byKey.set(k, list);
      }
    }
    for (const page of pages.values()) {
      const out = new Set<string>();
      const missing: string[] = [];
      for (const target of page.links) {
        const id = this.resolve(target, page.space);
        if (id === undefined) missing.push(target);
        else if (id !== page.id) out.add(id);
      }
      this.out.set(page.id, out);
      if (missing.length) this.unresolved.set(page.id, missing);
      for (const id of out) {
        const into = this.into.get(id) ?? new Set<string>();
        into.add(page.id);
        this.into.set(id, into);
      }
    }
  }

  /** The page a link target names, if any. */
  resolve(target: string, fromSpace = ''): string | undefined {
    const candidates = this.byKey.get(key(target.replace(/\.md$/i, '')));
    if (!candidates?.length) return undefined;
    return (
      candidates.find((id) => id === target) ??
      candidates.find((id) => this.pages.get(id)?.space === fromSpace) ??
      candidates[0]
    );
  }

  linksOf(id: string): PageLinks {
    return {
      links: [...(this.out.get(id) ?? [])].sort(),
      backlinks: [...(this.into.get(id) ?? [])].sort(),
      unresolved: this.unresolved.get(id) ?? [],
    };
  }

  get linkCount(): number {
    let n = 0;
    for (const set of this.out.values()) n += set.size;
    return n;
  }

  get unresolvedCount(): number {
    let n = 0;
    for (const list of this.unresolved.values()) n += list.length;
    return n;
  }

  /**
   * Concepts related to a page: direct links both ways weigh most, then shared tags, then pages
   * two links away. Without a page: the most linked-to pages (the wiki's central concepts).
   */
  related(id: string | undefined, limit: number): RelatedConcept[] {
    const scores = new Map<string, { score: number; reasons: string[] }>();
    const add = (other: string, score: number, reason: string) => {
      if (other === id) return;
      const entry = scores.get(other) ?? { score: 0, reasons: [] };
      entry.score += score;
      if (!entry.reasons.includes(reason)) entry.reasons.push(reason);
      scores.set(other, entry);
    };
    if (id === undefined) {
      for (const [target, from] of this.into)
        add(target, from.size, `${from.size} backlink${from.size === 1 ? '' : 's'}`);
    } else {
      const { links, backlinks } = this.linksOf(id);
      for (const other of links) add(other, 3, 'links to');
      for (const other of backlinks) add(other, 3, 'linked from');
      const tags = new Set(this.pages.get(id)?.tags ?? []);
      if (tags.size) {
        for (const page of this.pages.values())
          for (const tag of page.tags) if (tags.has(tag)) add(page.id, 1, `shared tag ${tag}`);
      }
      for (const near of new Set([...links, ...backlinks])) {
        const second = this.linksOf(near);
        for (const other of [...second.links, ...second.backlinks]) add(other, 0.5, `via ${near}`);
      }
    }
    return [...scores]
      .map(([other, { score, reasons }]) => ({
        id: other,
        title: this.pages.get(other)?.title ?? other,
        reasons,
        score,
      }))
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, limit);
  }
}
