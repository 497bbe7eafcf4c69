import { type Dirent, readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { default as MiniSearch, SearchOptions } from 'minisearch';
import { isInstalled, optionalRequire } from '../lazy-require.js';
import { readBundleText } from './bundle-files.js';
import { isIndexFile, isReserved, isSkipped } from './bundle-layout.js';

/** One page found by `memory_recall`. */
export interface RecallHit {
  /** Relative to the bundle. */
  path: string;
  title: string;
  score: number;
  /** The lines that matched, shortened. */
  snippet: string;
}

interface Doc {
  id: string;
  title: string;
  text: string;
  mtimeMs: number;
}

// Loaded with the first search: importing the framework does not load a search engine. It is an
// optional peer (the minimal install leaves it out): `recallEngineMissing` lets a builder say so
// before a run. Its CommonJS build is the class itself; a bundler may hand it over as `default`.
const minisearch = optionalRequire<typeof MiniSearch | { default: typeof MiniSearch }>(
  'minisearch',
  'memory_recall',
);

/** The packages `memory_recall` needs that are not installed: `['minisearch']` or `[]`. */
export function recallEngineMissing(): string[] {
  return isInstalled('minisearch') ? [] : ['minisearch'];
}

const SEARCH: SearchOptions = {
  boost: { title: 2, id: 1.5 },
  prefix: (term) => term.length > 2,
  fuzzy: (term) => (term.length > 4 ? 0.15 : false),
  combineWith: 'OR',
};
/** How often a search re-checks every page for edits made in place (which leave folders unchanged). */
const SWEEP_MS = 10_000;
const SNIPPET_CHARS = 300;

function titleOf(text: string, rel: string): { title: string; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/.exec(text);
  const title = match ? /^title:[ \t]*["']?(.*?)["']?[ \t]*$/m.exec(match[1] ?? '')?.[1] : undefined;
  return { title: title || rel, body: match ? text.slice(match[0].length) : text };
}

/**
 * The full-text index behind `memory_recall` (MiniSearch, in process): built on the first search,
 * updated by this process's own writes, and kept fresh against other writers by the folders'
 * modification times (every write of the bundle renames a file into its folder) plus a periodic
 * check of every page.
 */
export class RecallIndex {
  private engine: MiniSearch<Doc> | undefined;
  private readonly docs = new Map<string, Doc>();
  private readonly folders = new Map<string, number>();
  private building: Promise<void> | undefined;
  private lastSweep = 0;

  constructor(private readonly root: string) {}

  async search(query: string, limit: number, signal?: AbortSignal): Promise<RecallHit[]> {
    await this.ready(signal);
    await this.refresh(signal);
    const engine = this.engine as MiniSearch<Doc>;
    const terms = query
      .toLowerCase()
      .split(/[\s\p{P}]+/u)
      .filter(Boolean);
    return engine
      .search(query, SEARCH)
      .slice(0, limit)
      .map((result) => {
        const doc = this.docs.get(String(result.id)) as Doc;
        return {
          path: doc.id,
          title: doc.title,
          score: Number(result.score.toFixed(3)),
          snippet: snippet(doc.text, terms),
        };
      });
  }

  /** A page this process has just written (or removed, with `text` undefined). */
  async update(rel: string, text: string | undefined): Promise<void> {
    if (!this.engine || isReserved(rel) || isIndexFile(rel) || rel.endsWith('.archived.md')) return;
    if (text === undefined) {
      this.remove(rel);
      return;
    }
    const info = await stat(join(this.root, rel)).catch(() => undefined);
    this.put(rel, text, info?.mtimeMs ?? 0);
  }

  private ready(signal?: AbortSignal): Promise<void> {
    this.building ??= this.build(signal).catch((error: unknown) => {
      this.building = undefined;
      throw error;
    });
    return this.building;
  }

  private async build(signal?: AbortSignal): Promise<void> {
    const loaded = minisearch();
    const Engine = 'default' in loaded ? loaded.default : loaded;
    this.engine = new Engine<Doc>({ fields: ['title', 'text', 'id'], storeFields: [] });
    const files: string[] = [];
    this.scanFolder('', files);
    await this.readAll(files, signal);
    this.lastSweep = Date.now();
  }

  /** Lists one folder (recursively for new subfolders), noting its modification time. */
  private scanFolder(rel: string, files: string[]): void {
    const path = rel ? join(this.root, rel) : this.root;
    let mtime: number;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {
      this.folders.delete(rel);
      return;
    }
    this.folders.set(rel, mtime);
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (isSkipped(entry.name)) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!this.folders.has(child)) this.scanFolder(child, files);
      } else if (entry.isFile() && entry.name.endsWith('.md') && !isReserved(child) && !isIndexFile(child))
        files.push(child);
    }
  }

  private async readAll(files: string[], signal?: AbortSignal): Promise<void> {
    for (let i = 0; i < files.length; i += 64) {
      signal?.throwIfAborted();
      await Promise.all(
        files.slice(i, i + 64).map(async (rel) => {
          const file = join(this.root, rel);
          const info = await stat(file).catch(() => undefined);
          if (!info) return this.remove(rel);
          if (this.docs.get(rel)?.mtimeMs === info.mtimeMs) return;
          // Read without following a link swapped in since the listing (and never a FIFO).
          const text = await readBundleText(this.root, rel, signal).catch(() => undefined);
          if (text === undefined) this.remove(rel);
          else this.put(rel, text, info.mtimeMs);
        }),
      );
    }
  }

  /** Folders whose time changed are listed again; every page is checked now and then. */
  private async refresh(signal?: AbortSignal): Promise<void> {
    const changed: string[] = [];
    for (const [rel, mtime] of this.folders) {
      let now: number | undefined;
      try {
        now = statSync(rel ? join(this.root, rel) : this.root).mtimeMs;
      } catch {}
      if (now !== mtime) changed.push(rel);
    }
    const files: string[] = [];
    for (const rel of changed) {
      const listed: string[] = [];
      this.scanFolder(rel, listed);
      const prefix = rel ? `${rel}/` : '';
      for (const id of this.docs.keys()) {
        const inFolder = id.startsWith(prefix) && !id.slice(prefix.length).includes('/');
        if (inFolder && !listed.includes(id)) this.remove(id);
      }
      files.push(...listed);
    }
    if (Date.now() - this.lastSweep > SWEEP_MS) {
      this.lastSweep = Date.now();
      files.push(...this.docs.keys());
    }
    if (files.length > 0) await this.readAll([...new Set(files)], signal);
  }

  private put(rel: string, text: string, mtimeMs: number): void {
    const engine = this.engine as MiniSearch<Doc>;
    const { title, body } = titleOf(text, rel);
    const doc = { id: rel, title, text: body, mtimeMs };
    if (this.docs.has(rel)) engine.replace(doc);
    else engine.add(doc);
    this.docs.set(rel, doc);
  }

  private remove(rel: string): void {
    if (!this.docs.has(rel)) return;
    this.engine?.discard(rel);
    this.docs.delete(rel);
  }
}

function snippet(text: string, terms: string[]): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('<!--') && !l.startsWith('|') && !/^-{3,}$/.test(l));
  const hits = lines.filter((l) => terms.some((t) => l.toLowerCase().includes(t)));
  const chosen = (hits.length > 0 ? hits : lines).join(' … ');
  return chosen.length > SNIPPET_CHARS ? `${chosen.slice(0, SNIPPET_CHARS - 1)}…` : chosen;
}
