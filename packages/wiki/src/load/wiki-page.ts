/** One wiki page as loaded from disk. */
export type WikiPage = {
  /** `space/page` in the upstream layout; the path without `.md` for a markdown page. */
  id: string;
  title: string;
  /** The upstream space (first folder), or '' at the top of a markdown vault. */
  space: string;
  /** The upstream `page_type`, or frontmatter `type`. */
  type?: string;
  tags: string[];
  created?: string;
  updated?: string;
  /** The page text (markdown, or the YAML/TOML/JSON of a structured upstream page). */
  content: string;
  /** `[[link]]` targets as written (without `|alias` or `#section`). */
  links: string[];
  /** The file whose bytes `hash` is: `content.md` (upstream) or the `.md` page. */
  file: string;
  /** SHA-256 of that file; `wiki_write` must be given it to change the page. */
  hash: string;
  layout: 'upstream' | 'markdown';
};

/** An upstream `_space.yaml`. */
export type WikiSpace = {
  name: string;
  title: string;
  description?: string;
};
