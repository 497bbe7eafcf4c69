import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import type { ConfinedFolder } from '@raf/framework';
import { parseLinks } from './parse-links.js';
import type { WikiPage, WikiSpace } from './wiki-page.js';

/** Upstream page content files, in the order they are looked for. */
export const CONTENT_FILES = ['content.md', 'content.yaml', 'content.yml', 'content.toml', 'content.json'];
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.raf', '.obsidian', '.trash']);
const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\r?\n?/;

export const hashOf = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** Hears why a file's YAML read as empty: its line (in the YAML text) and the parser's message. */
export type YamlProblemSink = (line: number, message: string) => void;

/** A YAML mapping, or {} for anything else (a broken file reads as empty, never as an exception). */
export async function yamlObject(
  text: string,
  onProblem?: YamlProblemSink,
): Promise<Record<string, unknown>> {
  // Loaded when a wiki is first read, not when the package is imported. The shared YAML limits
  // (alias count, size) hold: a vault is text from outside.
  const { parseYamlLimited } = await import('@raf/framework');
  const { value, problems } = parseYamlLimited(text);
  const first = problems[0];
  if (first && onProblem) onProblem(first.line, first.message);
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

const str = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
const date = (value: unknown) => (value instanceof Date ? value.toISOString() : str(value));
const tagsOf = (value: unknown) =>
  Array.isArray(value)
    ? value.map(String)
    : typeof value === 'string'
      ? value.split(/[,\s]+/).filter(Boolean)
      : [];

/** Splits YAML frontmatter off a markdown page. */
export async function splitFrontmatter(
  text: string,
  onProblem?: YamlProblemSink,
): Promise<{ data: Record<string, unknown>; body: string }> {
  const match = FRONTMATTER.exec(text);
  // The frontmatter starts on the file's second line (after `---`).
  const shifted = onProblem && ((line: number, message: string) => onProblem(line + 1, message));
  return match
    ? { data: await yamlObject(match[1] as string, shifted), body: text.slice(match[0].length) }
    : { data: {}, body: text };
}

/** The largest page file (`content.*`, `.md`, `_page.yaml`) read; larger ones are a problem, not a page. */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;
/** The most files a wiki folder is walked for. */
export const MAX_WIKI_FILES = 100_000;

/** Reads one wiki file (no link followed, regular files only, capped); undefined when missing. */
async function readText(
  folder: ConfinedFolder,
  rel: string,
  signal: AbortSignal,
): Promise<Buffer | undefined> {
  return folder.readOptional(rel, { maxBytes: MAX_PAGE_BYTES, signal });
}

/** Records a file whose YAML read as empty, with its line, among the wiki's problems. */
const brokenYaml = (rel: string, problems: string[] | undefined): YamlProblemSink | undefined =>
  problems && ((line, message) => problems.push(`${rel}:${line}: invalid YAML (${message}); read as empty`));

const parentOf = (rel: string) => {
  const at = rel.lastIndexOf('/');
  return at < 0 ? '' : rel.slice(0, at);
};
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
const join2 = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

/** An upstream page folder (`_page.yaml` + `content.*`); undefined when it has no content file. */
export async function loadUpstreamPage(
  folder: ConfinedFolder,
  pageDir: string,
  signal: AbortSignal,
  problems?: string[],
): Promise<WikiPage | undefined> {
  // A `_page.yaml` that is a link (or a FIFO) is refused: it never sets a title from outside.
  const metaRel = join2(pageDir, '_page.yaml');
  const metaBytes = await readText(folder, metaRel, signal);
  const meta = await yamlObject(metaBytes?.toString('utf8') ?? '', brokenYaml(metaRel, problems));
  for (const name of CONTENT_FILES) {
    const rel = join2(pageDir, name);
    const bytes = await readText(folder, rel, signal);
    if (!bytes) continue;
    const content = bytes.toString('utf8');
    const id = pageDir;
    const type = str(meta.page_type) ?? str(meta.pageType);
    const created = date(meta.created);
    const updated = date(meta.updated);
    return {
      id,
      title: str(meta.title) ?? str(meta.name) ?? (nameOf(pageDir) || basename(folder.root)),
      space: id.includes('/') ? (id.split('/')[0] as string) : '',
      ...(type !== undefined && { type }),
      tags: tagsOf(meta.tags),
      ...(created !== undefined && { created }),
      ...(updated !== undefined && { updated }),
      content,
      links: name === 'content.md' ? parseLinks(content) : [],
      file: folder.pathOf(rel),
      hash: hashOf(bytes),
      layout: 'upstream',
    };
  }
  return undefined;
}

/** A plain markdown page: frontmatter (`title`, `tags`, `type`, `created`, `updated`) and `[[links]]`. */
export async function loadMarkdownPage(
  folder: ConfinedFolder,
  rel: string,
  signal: AbortSignal,
  problems?: string[],
): Promise<WikiPage> {
  const bytes = await readText(folder, rel, signal);
  if (!bytes) throw Object.assign(new Error(`${rel} does not exist`), { code: 'ENOENT' });
  const { data, body } = await splitFrontmatter(bytes.toString('utf8'), brokenYaml(rel, problems));
  const id = rel.replace(/\.md$/i, '');
  const heading = /^ {0,3}#[ \t]+(.+?)[ \t#]*$/m.exec(body)?.[1];
  const type = str(data.type) ?? str(data.page_type);
  const created = date(data.created);
  const updated = date(data.updated);
  return {
    id,
    title: str(data.title) ?? heading?.trim() ?? basename(id),
    space: id.includes('/') ? (id.split('/')[0] as string) : '',
    ...(type !== undefined && { type }),
    tags: tagsOf(data.tags),
    ...(created !== undefined && { created }),
    ...(updated !== undefined && { updated }),
    content: body,
    links: parseLinks(body),
    file: folder.pathOf(rel),
    hash: hashOf(bytes),
    layout: 'markdown',
  };
}

export async function loadSpace(
  folder: ConfinedFolder,
  dir: string,
  signal: AbortSignal,
  problems?: string[],
): Promise<WikiSpace> {
  const rel = join2(dir, '_space.yaml');
  const bytes = await readText(folder, rel, signal).catch(() => undefined);
  const meta = await yamlObject(bytes?.toString('utf8') ?? '', brokenYaml(rel, problems));
  const description = str(meta.description);
  const fallback = nameOf(dir) || basename(folder.root);
  return {
    name: str(meta.name) ?? fallback,
    title: str(meta.title) ?? str(meta.name) ?? fallback,
    ...(description !== undefined && { description }),
  };
}

const skipped = (name: string) => name.startsWith('.') || SKIPPED_DIRS.has(name);

/**
 * Every page of the wiki folder: upstream page folders (a `_page.yaml`) and markdown files
 * elsewhere (a page folder's own `content.md` is its content, not a page). The folder is walked
 * without following any link, and only regular files are read (non-blocking, capped): a link, a
 * FIFO or an oversized file is reported as a problem, never read.
 */
export async function loadWiki(
  folder: ConfinedFolder,
  signal: AbortSignal,
): Promise<{ pages: WikiPage[]; spaces: WikiSpace[]; problems: string[] }> {
  const pages: WikiPage[] = [];
  const spaces: WikiSpace[] = [];
  const problems: string[] = [];
  const walk = await folder.walk({ signal, maxFiles: MAX_WIKI_FILES, skip: skipped });
  if (walk.truncated) problems.push(`more than ${MAX_WIKI_FILES} files: the rest are not read`);
  // A page folder is one that names a `_page.yaml`, even a refused one (it then has no page).
  const pageDirs = new Set<string>();
  for (const entry of [...walk.files, ...walk.refused])
    if (nameOf(entry.path) === '_page.yaml') pageDirs.add(parentOf(entry.path));
  /** Whether `dir` is a page folder or lies inside one (a page folder holds no more pages). */
  const underPage = (dir: string): boolean => {
    for (let d = dir; ; d = parentOf(d)) {
      if (pageDirs.has(d)) return true;
      if (d === '') return false;
    }
  };
  const outerFree = (dir: string) => dir === '' || !underPage(parentOf(dir));
  for (const { path, reason } of walk.refused) problems.push(`${path}: ${reason}`);
  for (const { path } of walk.files) {
    signal.throwIfAborted();
    const name = nameOf(path);
    const dir = parentOf(path);
    if (name === '_space.yaml') {
      if (outerFree(dir)) spaces.push(await loadSpace(folder, dir, signal, problems));
    } else if (name === '_page.yaml') {
      if (!outerFree(dir)) continue;
      const page = await loadUpstreamPage(folder, dir, signal, problems).catch((error: unknown) => {
        if (signal.aborted) throw error;
        problems.push(`${dir}: ${(error as Error).message}`);
        return null;
      });
      if (page) pages.push(page);
      else if (page === undefined) problems.push(`${dir}: _page.yaml without a content file`);
    } else if (/\.md$/i.test(name) && !underPage(dir)) {
      try {
        pages.push(await loadMarkdownPage(folder, path, signal, problems));
      } catch (error) {
        if (signal.aborted) throw error;
        problems.push(`${path}: ${(error as Error).message}`);
      }
    }
  }
  return { pages, spaces, problems };
}

/** The page folder or markdown file a changed path belongs to, relative to `root`. */
export type PageLocation =
  | { kind: 'page-folder' | 'space'; dir: string }
  | { kind: 'markdown'; file: string };

/** What a changed path can be: a page folder's file, a space's `_space.yaml`, or a markdown page. */
export function pageLocation(path: string): PageLocation | undefined {
  const name = basename(path);
  if (name === '_space.yaml') return { kind: 'space', dir: dirname(path) };
  if (name === '_page.yaml' || CONTENT_FILES.includes(name))
    return { kind: 'page-folder', dir: dirname(path) };
  if (/\.md$/i.test(name)) return { kind: 'markdown', file: path };
  return undefined;
}
