import { posix } from 'node:path';
import { ConfigError } from '@raf/core';
import { bundleFolder } from './bundle-files.js';

/** Files with a fixed role: the entry, the changelog, the guide, the curator's rules. */
export const RESERVED_FILES = ['index.md', 'log.md', 'SKILL.md', 'AGENT.md'] as const;
export const INDEX_FILE = 'INDEX.md';
export const REFERENCE_PAGES = ['SOUL', 'USER', 'RULES', 'LESSON', 'PREFERENCE'] as const;

/** `memory_save` topics that name a reference page (several spellings each). */
const REFERENCE_TOPICS: Readonly<Record<string, string>> = {
  soul: 'SOUL',
  identity: 'SOUL',
  self: 'SOUL',
  user: 'USER',
  rule: 'RULES',
  rules: 'RULES',
  lesson: 'LESSON',
  lessons: 'LESSON',
  preference: 'PREFERENCE',
  preferences: 'PREFERENCE',
};

export interface TopicPage {
  /** The page, relative to the bundle (`references/USER.md`, `assets/t/c/s.md`). */
  path: string;
  /** Frontmatter `type` of a new page. */
  type: string;
  /** Title of each level that needs an index row: topic, chapter, section (assets only). */
  levels: string[];
}

/** A file or folder name from what a model wrote: letters and digits of any script, `-`, `_`. */
export function slug(text: string): string {
  const value = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
  return value === 'index' ? 'index-page' : value;
}

/**
 * Where `memory_save {topic}` writes: `soul|user|rules|lesson|preference` (or `references/USER`)
 * go to their reference page; anything else is a domain path `topic[/chapter[/section]]` under
 * `assets/` (chapter `general` and section `notes` when not given).
 */
export function pageForTopic(topic: string): TopicPage {
  const parts = topic
    .split(/[/>›]/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts[0]?.toLowerCase() === 'references') parts.shift();
  if (parts.length === 1) {
    const name = (parts[0] ?? '').replace(/\.md$/i, '').toLowerCase();
    const page =
      REFERENCE_TOPICS[name] ?? (REFERENCE_PAGES as readonly string[]).find((p) => p.toLowerCase() === name);
    if (page)
      return {
        path: `references/${page}.md`,
        type: page === 'RULES' ? 'rules' : page.toLowerCase(),
        levels: [],
      };
  }
  if (parts[0]?.toLowerCase() === 'assets') parts.shift();
  if (parts.length === 0) throw new ConfigError('topic is empty: give e.g. "user" or "typescript/generics"');
  if (parts.length > 3)
    throw new ConfigError(`topic "${topic}" has ${parts.length} levels; at most 3 (topic/chapter/section)`);
  const levels = [parts[0] ?? '', parts[1] ?? 'general', parts[2] ?? 'notes'];
  const slugs = levels.map(slug);
  const empty = slugs.indexOf('');
  if (empty >= 0) throw new ConfigError(`topic "${topic}": level ${empty + 1} has no letters or digits`);
  return { path: `assets/${slugs.join('/')}.md`, type: 'knowledge', levels };
}

/** Hidden entries (locks, temporary files) and archived pages are never part of the bundle's content. */
export function isSkipped(name: string): boolean {
  return name.startsWith('.') || name.endsWith('.archived.md');
}

export function isReserved(rel: string): boolean {
  return (RESERVED_FILES as readonly string[]).includes(rel);
}

export function isIndexFile(rel: string): boolean {
  return rel === 'index.md' || posix.basename(rel) === INDEX_FILE;
}

/**
 * The index that must list `rel`: `index.md` for pages at the top and in `references/` (and for
 * `assets/INDEX.md`); otherwise the `INDEX.md` of the folder that holds the page (for an
 * `INDEX.md`, of its parent folder). Reserved files need no index.
 */
export function indexOf(rel: string): string | undefined {
  if (isReserved(rel)) return undefined;
  const base = posix.basename(rel);
  const folder = base === INDEX_FILE ? posix.dirname(posix.dirname(rel)) : posix.dirname(rel);
  if (folder === '.' || folder === 'references') return 'index.md';
  return `${folder}/${INDEX_FILE}`;
}

/** Every markdown file of the bundle (relative, `/`-separated), archived and hidden ones left out. */
export async function listMarkdown(root: string, signal?: AbortSignal): Promise<string[]> {
  // Links planted in the bundle are never followed (nor listed): see `bundleFolder`.
  const walk = await bundleFolder(root)
    .walk({ signal: signal ?? new AbortController().signal, skip: (name) => isSkipped(name) })
    .catch(() => ({ files: [] }));
  return walk.files
    .map((f) => f.path)
    .filter((p) => p.endsWith('.md'))
    .sort();
}
