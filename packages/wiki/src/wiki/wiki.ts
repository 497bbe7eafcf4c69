import { stat } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { ConfinedFolder } from '@raf/framework';
import { LinkGraph, type PageLinks, type RelatedConcept } from '../graph/link-graph.js';
import { loadMarkdownPage, loadSpace, loadUpstreamPage, loadWiki, pageLocation } from '../load/load-wiki.js';
import type { WikiPage, WikiSpace } from '../load/wiki-page.js';
import { type WikiSearchHit, WikiSearchIndex } from './search-index.js';
import { watchWiki } from './wiki-watcher.js';
import {
  type ProtectedCheck,
  type WikiWriteRequest,
  type WikiWriteResult,
  writePage,
} from './wiki-writer.js';

/** Temporary files of interrupted writes older than this are removed when a wiki is opened. */
const STALE_TEMP_MS = 60_000;

export interface WikiStats {
  root: string;
  pages: number;
  spaces: number;
  links: number;
  unresolvedLinks: number;
  layout: 'upstream' | 'markdown' | 'mixed' | 'empty';
  watching: boolean;
  lastLoad: string | null;
}

/**
 * A wiki folder in memory: its pages (upstream spaces and markdown files), a full-text index,
 * the `[[link]]` graph, and, once `watch()` runs, kept in step with edits made on disk.
 */
export class Wiki {
  private readonly pages = new Map<string, WikiPage>();
  private spaces = new Map<string, WikiSpace>();
  private graphCache: LinkGraph | undefined;
  private stopWatching: (() => Promise<void>) | undefined;
  private lastLoad: string | null = null;
  problems: string[] = [];

  /** The wiki folder: every page is read and written through it (no link followed, see `loadWiki`). */
  readonly folder: ConfinedFolder;

  private constructor(
    readonly root: string,
    private readonly index: WikiSearchIndex,
  ) {
    this.folder = new ConfinedFolder(root);
  }

  /**
   * Reads the wiki folder. Temporary files that interrupted writes left (older than a minute) are
   * removed first. The signal stops the reading (a FIFO or a huge folder never holds it up).
   */
  static async open(root: string, options: { signal?: AbortSignal } = {}): Promise<Wiki> {
    const signal = options.signal ?? new AbortController().signal;
    const info = await stat(root).catch(() => undefined);
    if (!info?.isDirectory()) throw new Error(`the wiki folder ${root} does not exist`);
    const wiki = new Wiki(resolve(root), await WikiSearchIndex.create());
    await wiki.folder.sweepTemporary(STALE_TEMP_MS, signal).catch((error: unknown) => {
      if (signal.aborted) throw error;
    });
    await wiki.reload({ signal });
    return wiki;
  }

  /** Reads every page again (`raf index`). */
  async reload(
    options: { signal?: AbortSignal } = {},
  ): Promise<{ pages: number; spaces: number; problems: string[] }> {
    const loaded = await loadWiki(this.folder, options.signal ?? new AbortController().signal);
    for (const id of this.pages.keys()) this.index.remove(id);
    this.pages.clear();
    for (const page of loaded.pages) this.putPage(page);
    this.spaces = new Map(loaded.spaces.map((s) => [s.name, s]));
    this.problems = loaded.problems;
    this.lastLoad = new Date().toISOString();
    return { pages: this.pages.size, spaces: this.spaces.size, problems: loaded.problems };
  }

  private putPage(page: WikiPage): void {
    this.pages.set(page.id, page);
    this.index.put(page);
    this.graphCache = undefined;
  }

  private dropPage(id: string): void {
    if (!this.pages.delete(id)) return;
    this.index.remove(id);
    this.graphCache = undefined;
  }

  private get graph(): LinkGraph {
    this.graphCache ??= new LinkGraph(this.pages);
    return this.graphCache;
  }

  /** Re-reads whatever page a created, changed or deleted path belongs to. */
  async reloadPath(path: string, signal: AbortSignal = new AbortController().signal): Promise<void> {
    const raw = relative(this.root, resolve(this.root, path));
    if (raw.startsWith('..') || raw === '') return;
    const rel = raw.split(sep).join('/');
    const location = pageLocation(rel);
    const dirOf = (dir: string) => (dir === '.' ? '' : dir);
    if (location === undefined) {
      // A deleted folder: every page under it goes.
      for (const page of [...this.pages.values()])
        if (page.id.startsWith(`${rel}/`) || page.id === rel) this.dropPage(page.id);
      return;
    }
    if (location.kind === 'space') {
      const space = await loadSpace(this.folder, dirOf(location.dir), signal);
      this.spaces.set(space.name, space);
      return;
    }
    if (location.kind === 'page-folder') {
      const dir = dirOf(location.dir);
      const meta = await this.folder.entry(dir ? `${dir}/_page.yaml` : '_page.yaml');
      if (meta) {
        const page = await loadUpstreamPage(this.folder, dir, signal).catch(() => undefined);
        if (page) this.putPage(page);
        else this.dropPage(dir);
        return;
      }
      if (!rel.endsWith('.md')) return;
    }
    const file = location.kind === 'markdown' ? location.file : rel;
    const id = file.replace(/\.md$/i, '');
    const page = await loadMarkdownPage(this.folder, file, signal).catch(() => undefined);
    if (page) this.putPage(page);
    else this.dropPage(id);
  }

  /** Starts following edits on disk (idempotent). */
  async watch(): Promise<void> {
    if (this.stopWatching) return;
    this.stopWatching = await watchWiki(this.root, (path) => {
      void this.reloadPath(path).catch(() => undefined);
    });
  }

  get watching(): boolean {
    return this.stopWatching !== undefined;
  }

  search(query: string, limit = 5): WikiSearchHit[] {
    return this.index.search(query, limit, this.pages);
  }

  /** A page by id, by its last path segment or by title (as a `[[link]]` would name it). */
  page(ref: string): (WikiPage & PageLinks) | undefined {
    const id = this.pages.has(ref) ? ref : this.graph.resolve(ref);
    const page = id === undefined ? undefined : this.pages.get(id);
    return page && { ...page, ...this.graph.linksOf(page.id) };
  }

  concepts(ref: string | undefined, limit = 10): RelatedConcept[] {
    const id = ref === undefined ? undefined : (this.page(ref)?.id ?? ref);
    return this.graph.related(id, limit);
  }

  get spaceList(): WikiSpace[] {
    return [...this.spaces.values()];
  }

  get pageList(): WikiPage[] {
    return [...this.pages.values()];
  }

  /** Creates or replaces a page, refusing when it changed on disk since `expectedHash` was read. */
  async write(
    request: WikiWriteRequest,
    signal: AbortSignal,
    protectedReason?: ProtectedCheck,
  ): Promise<WikiWriteResult> {
    const result = await writePage(this, request, signal, protectedReason);
    if (result.file) await this.reloadPath(result.file, signal);
    return result;
  }

  stats(): WikiStats {
    const layouts = new Set(this.pageList.map((p) => p.layout));
    return {
      root: this.root,
      pages: this.pages.size,
      spaces: this.spaces.size,
      links: this.graph.linkCount,
      unresolvedLinks: this.graph.unresolvedCount,
      layout:
        layouts.size === 0
          ? 'empty'
          : layouts.size > 1
            ? 'mixed'
            : ([...layouts][0] as 'upstream' | 'markdown'),
      watching: this.watching,
      lastLoad: this.lastLoad,
    };
  }

  async close(): Promise<void> {
    const stop = this.stopWatching;
    this.stopWatching = undefined;
    await stop?.();
  }
}
