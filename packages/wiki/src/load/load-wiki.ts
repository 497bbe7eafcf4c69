import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { parseLinks } from './parse-links.js';
import type { WikiPage, WikiSpace } from './wiki-page.js';

/** Upstream page content files, in the order they are looked for. */
export const CONTENT_FILES = ['content.md', 'content.yaml', 'content.yml', 'content.toml', 'content.json'];
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.raf', '.obsidian', '.trash']);
const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\r?\n?/;

export const hashOf = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const posix = (path: string) => path.split(sep).join('/');

/** A YAML mapping, or {} for anything else (a broken file reads as empty, never as an exception). */
export async function yamlObject(text: string): Promise<Record<string, unknown>> {
  // Loaded when a wiki is first read, not when the package is imported. The shared YAML limits
  // (alias count, size) hold: a vault is text from outside.
  const { parseYamlLimited } = await import('@raf/framework');
  const { value } = parseYamlLimited(text);
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
): Promise<{ data: Record<string, unknown>; body: string }> {
  const match = FRONTMATTER.exec(text);
  return match
    ? { data: await yamlObject(match[1] as string), body: text.slice(match[0].length) }
    : { data: {}, body: text };
}

/** An upstream page folder (`_page.yaml` + `content.*`); undefined when it has no content file. */
export async function loadUpstreamPage(root: string, pageDir: string): Promise<WikiPage | undefined> {
  const meta = await yamlObject(await readFile(join(pageDir, '_page.yaml'), 'utf8'));
  for (const name of CONTENT_FILES) {
    const file = join(pageDir, name);
    const bytes = await readFile(file).catch(() => undefined);
    if (!bytes) continue;
    const content = bytes.toString('utf8');
    const id = posix(relative(root, pageDir));
    const type = str(meta.page_type) ?? str(meta.pageType);
    const created = date(meta.created);
    const updated = date(meta.updated);
    return {
      id,
      title: str(meta.title) ?? str(meta.name) ?? basename(pageDir),
      space: id.includes('/') ? (id.split('/')[0] as string) : '',
      ...(type !== undefined && { type }),
      tags: tagsOf(meta.tags),
      ...(created !== undefined && { created }),
      ...(updated !== undefined && { updated }),
      content,
      links: name === 'content.md' ? parseLinks(content) : [],
      file,
      hash: hashOf(bytes),
      layout: 'upstream',
    };
  }
  return undefined;
}

/** A plain markdown page: frontmatter (`title`, `tags`, `type`, `created`, `updated`) and `[[links]]`. */
export async function loadMarkdownPage(root: string, file: string): Promise<WikiPage> {
  const bytes = await readFile(file);
  const { data, body } = await splitFrontmatter(bytes.toString('utf8'));
  const id = posix(relative(root, file)).replace(/\.md$/i, '');
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
    file,
    hash: hashOf(bytes),
    layout: 'markdown',
  };
}

export async function loadSpace(dir: string): Promise<WikiSpace> {
  const meta = await yamlObject(await readFile(join(dir, '_space.yaml'), 'utf8').catch(() => ''));
  const description = str(meta.description);
  return {
    name: str(meta.name) ?? basename(dir),
    title: str(meta.title) ?? str(meta.name) ?? basename(dir),
    ...(description !== undefined && { description }),
  };
}

/**
 * Every page under `root`: upstream page folders (a `_page.yaml`) and markdown files elsewhere
 * (a page folder's own `content.md` is its content, not a page). Unreadable entries are reported.
 */
export async function loadWiki(
  root: string,
): Promise<{ pages: WikiPage[]; spaces: WikiSpace[]; problems: string[] }> {
  const pages: WikiPage[] = [];
  const spaces: WikiSpace[] = [];
  const problems: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    const names = new Set(entries.map((e) => e.name));
    if (names.has('_space.yaml')) spaces.push(await loadSpace(dir));
    if (names.has('_page.yaml')) {
      const page = await loadUpstreamPage(root, dir).catch((error: unknown) => {
        problems.push(`${posix(relative(root, dir))}: ${(error as Error).message}`);
        return undefined;
      });
      if (page) pages.push(page);
      else problems.push(`${posix(relative(root, dir))}: _page.yaml without a content file`);
      return; // a page folder holds its own files, not more pages
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && /\.md$/i.test(entry.name)) {
        try {
          pages.push(await loadMarkdownPage(root, path));
        } catch (error) {
          problems.push(`${posix(relative(root, path))}: ${(error as Error).message}`);
        }
      }
    }
  };
  await walk(root);
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
