import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CancelledError, ConfigError, getErrorMessage } from '@raf/core';
import type { Chunk } from '../chunk/chunk.js';
import { chunkSizes } from '../chunk/chunk.js';
import { chunkMarkdown } from '../chunk/markdown-chunker.js';
import { chunkRecursive } from '../chunk/recursive-chunker.js';
import type { LoadedDocument } from '../load/document.js';
import { documentLimits } from '../load/document-limits.js';
import { loadDocument } from '../load/load-document.js';
import { nearestRows } from '../search/exact-vector-search.js';
import { ftsQuery } from '../search/fts-query.js';
import { HYBRID_FUSION, reciprocalRankFusion } from '../search/reciprocal-rank-fusion.js';
import { SourceDownloader } from '../source/download-source.js';
import { expandSources, type SourceRef } from '../source/expand-sources.js';
import { readSource, stampOf } from '../source/read-source.js';
import {
  embeddingText,
  KnowledgeStore,
  type NewChunk,
  type StoredDocument,
} from '../store/knowledge-store.js';
import type {
  KnowledgeBaseOptions,
  KnowledgeHit,
  KnowledgeStats,
  RefreshOptions,
  RefreshReport,
  RetrievalMode,
  SearchOptions,
} from './knowledge-types.js';

/** Chunks waiting for embeddings before their documents are written (bounds memory on big corpora). */
const FLUSH_CHUNKS = 512;
/** Candidates each retriever contributes to the fusion. */
const CANDIDATES = 50;

interface Pending {
  ref: SourceRef;
  hash: string;
  size: number;
  mtimeMs: number;
  document: LoadedDocument;
  chunks: NewChunk[];
  /** Indexes into `chunks` that still need a vector. */
  missing: number[];
}

/**
 * A knowledge base on one SQLite file: `refresh()` brings the index up to date with the sources
 * (only new or changed content is chunked and embedded; deleted sources leave the index),
 * `search()` answers with BM25, exact vector search, or both fused by reciprocal rank.
 */
export class KnowledgeBase {
  private running: Promise<RefreshReport> | undefined;
  private readonly downloader: SourceDownloader;

  private constructor(
    private readonly store: KnowledgeStore,
    private readonly options: KnowledgeBaseOptions,
  ) {
    this.downloader = new SourceDownloader(options.allowPrivate);
  }

  /** Opens (or creates) the index file; nothing is read from the sources until `refresh()`. */
  static async open(options: KnowledgeBaseOptions): Promise<KnowledgeBase> {
    chunkSizes(options); // a bad size is an error now, not at the first refresh
    if (options.store !== ':memory:') mkdirSync(dirname(resolve(options.store)), { recursive: true });
    try {
      return new KnowledgeBase(await KnowledgeStore.open(options.store), options);
    } catch (error) {
      // Not a SQLite file, locked, unreadable: say which file, not just SQLite's words.
      throw new ConfigError(`knowledge store ${options.store}: ${getErrorMessage(error)}`, { cause: error });
    }
  }

  /** The state of an index file without creating or changing anything; undefined when it does not exist. */
  static async inspect(store: string): Promise<KnowledgeStats | undefined> {
    let opened: KnowledgeStore;
    try {
      opened = await KnowledgeStore.open(store, { readonly: true });
    } catch {
      return undefined;
    }
    try {
      return statsOf(opened);
    } catch {
      return undefined;
    } finally {
      opened.close();
    }
  }

  get storePath(): string {
    return this.store.path;
  }

  /** Whether a search can use vectors: an embedding model is set and the index holds vectors. */
  get hasVectors(): boolean {
    // From the in-memory matrix (read once per index change): counting BLOB rows in SQLite on
    // every query would read every vector from disk.
    return this.options.embeddings !== undefined && this.store.vectors().ids.length > 0;
  }

  stats(): KnowledgeStats {
    return statsOf(this.store);
  }

  /** Brings the index up to date; concurrent calls share one run. */
  refresh(options: RefreshOptions = {}): Promise<RefreshReport> {
    this.running ??= this.doRefresh(options).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private fingerprint(): string {
    const { chunkSize, chunkOverlap, chunker, embeddings } = this.options;
    return JSON.stringify({
      chunkSize: chunkSize ?? null,
      chunkOverlap: chunkOverlap ?? null,
      chunker: chunker ?? 'auto',
      embeddings: embeddings?.modelId ?? null,
    });
  }

  private async doRefresh({
    signal = new AbortController().signal,
    onProgress,
  }: RefreshOptions): Promise<RefreshReport> {
    const baseDir = this.options.baseDir ?? process.cwd();
    const { refs, problems } = await expandSources(this.options.sources, baseDir, { signal });
    const report: RefreshReport = {
      documents: 0,
      chunks: 0,
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: 0,
      embedded: 0,
      failed: [],
      problems,
    };
    const fingerprint = this.fingerprint();
    if (this.store.meta('fingerprint') !== fingerprint) {
      this.store.clear(); // other chunking or another model: nothing stored is comparable
      this.store.setMeta('fingerprint', fingerprint);
    }
    const existing = this.store.documents();
    const wanted = new Set(refs.map((r) => r.id));
    for (const source of existing.keys()) {
      if (wanted.has(source)) continue;
      this.store.removeDocument(source);
      report.removed++;
    }
    let pending: Pending[] = [];
    let done = 0;
    const total = refs.length;
    onProgress?.({ phase: 'scan', done: 0, total });
    for (const ref of refs) {
      if (signal.aborted) throw new CancelledError('indexing cancelled');
      const before = existing.get(ref.id);
      try {
        const item = await this.prepare(ref, before, signal);
        if (item === undefined) {
          report.unchanged++;
          done++;
          onProgress?.({ phase: 'index', done, total, item: ref.id });
          continue;
        }
        if (before) report.updated++;
        else report.added++;
        pending.push(item);
      } catch (error) {
        if (signal.aborted) throw new CancelledError('indexing cancelled', { cause: error });
        report.failed.push({ source: ref.id, error: getErrorMessage(error) });
        done++;
        onProgress?.({ phase: 'index', done, total, item: ref.id });
        continue;
      }
      if (pending.reduce((n, p) => n + p.missing.length, 0) >= FLUSH_CHUNKS) {
        report.embedded += await this.flush(pending, signal);
        for (const p of pending) onProgress?.({ phase: 'index', done: ++done, total, item: p.ref.id });
        pending = [];
      }
    }
    report.embedded += await this.flush(pending, signal);
    for (const p of pending) onProgress?.({ phase: 'index', done: ++done, total, item: p.ref.id });
    this.store.setMeta('last_build', new Date().toISOString());
    const counts = this.store.counts();
    report.documents = counts.documents;
    report.chunks = counts.chunks;
    onProgress?.({ phase: 'done', done: total, total });
    return report;
  }

  /** Undefined when the source is unchanged (same size and mtime, or same content hash). */
  private async prepare(
    ref: SourceRef,
    before: StoredDocument | undefined,
    signal: AbortSignal,
  ): Promise<Pending | undefined> {
    const stamp = await stampOf(ref);
    if (before && stamp && stamp.size === before.size && stamp.mtimeMs === before.mtimeMs) return undefined;
    const content = await readSource(ref, signal, this.downloader);
    if (before && content.hash === before.hash) {
      this.store.touchDocument(ref.id, content.size, content.mtimeMs);
      return undefined;
    }
    const limits = documentLimits(
      Object.fromEntries(
        Object.entries(this.options.documentLimits ?? {}).filter(([, v]) => v !== undefined),
      ),
    );
    const document = await loadDocument(content.bytes, content.format, limits, signal);
    const previous = before && this.options.embeddings ? this.store.previousVectors(before.id) : undefined;
    const chunks: NewChunk[] = this.chunk(document).map((c) => {
      const vector = previous?.get(embeddingText(document.title, c.headings, c.text));
      return vector ? { ...c, vector } : c;
    });
    const missing = this.options.embeddings ? chunks.flatMap((c, i) => (c.vector ? [] : [i])) : [];
    return {
      ref,
      hash: content.hash,
      size: content.size,
      mtimeMs: content.mtimeMs,
      document,
      chunks,
      missing,
    };
  }

  private chunk(document: LoadedDocument): Chunk[] {
    const { chunker = 'auto', chunkSize, chunkOverlap } = this.options;
    const sizes = {
      ...(chunkSize !== undefined && { chunkSize }),
      ...(chunkOverlap !== undefined && { chunkOverlap }),
    };
    return document.parts.flatMap((part) => {
      const markdown = chunker === 'markdown' || (chunker === 'auto' && part.markdown);
      const chunks = markdown
        ? chunkMarkdown(part.text, sizes)
        : chunkRecursive(part.text, sizes).map((text) => ({ text, headings: [] as string[] }));
      return chunks.map((c) => ({ text: c.text, headings: [...part.headings, ...c.headings] }));
    });
  }

  /** Embeds what the pending documents miss, then writes them in one transaction. */
  private async flush(pending: Pending[], signal: AbortSignal): Promise<number> {
    const model = this.options.embeddings;
    const wanted = pending.flatMap((p) => p.missing.map((i) => ({ p, i })));
    if (model && wanted.length > 0) {
      const vectors = await model.embed(
        wanted.map(({ p, i }) => {
          const chunk = p.chunks[i] as NewChunk;
          return embeddingText(p.document.title, chunk.headings, chunk.text);
        }),
        { signal },
      );
      const dimension = (vectors[0] as Float32Array).length;
      const stored = Number(this.store.meta('embedding_dimension') ?? dimension);
      if (vectors.some((v) => v.length !== stored)) {
        throw new ConfigError(
          `embedding model ${model.modelId} returned ${dimension}-d vectors; the index holds ${stored}-d ones`,
        );
      }
      this.store.setMeta('embedding_dimension', String(stored));
      this.store.setMeta('embedding_model', model.modelId);
      wanted.forEach(({ p, i }, n) => {
        (p.chunks[i] as NewChunk).vector = vectors[n] as Float32Array;
      });
    }
    const now = new Date().toISOString();
    this.store.batch(() => {
      for (const p of pending) {
        this.store.putDocument(
          {
            source: p.ref.id,
            hash: p.hash,
            size: p.size,
            mtimeMs: p.mtimeMs,
            title: p.document.title ?? null,
            format: p.document.format,
          },
          p.chunks,
          now,
        );
      }
    });
    return wanted.length;
  }

  /** The best chunks for a query; `mode` defaults to hybrid when vectors exist, else lexical. */
  async search(query: string, options: SearchOptions = {}): Promise<KnowledgeHit[]> {
    const topK = Math.max(1, options.topK ?? 5);
    const mode: RetrievalMode = options.mode ?? (this.hasVectors ? 'hybrid' : 'lexical');
    if (mode !== 'lexical' && !this.options.embeddings)
      throw new ConfigError(`${mode} search needs an embedding model (config.embeddings)`);
    const lexical = mode === 'vector' ? [] : this.store.lexical(ftsQuery(query), CANDIDATES);
    let vector: { id: number; score: number }[] = [];
    if (mode !== 'lexical') {
      const signal = options.signal ?? new AbortController().signal;
      const [q] = await (this.options.embeddings as NonNullable<KnowledgeBaseOptions['embeddings']>).embed(
        [query],
        { signal },
      );
      const { ids, matrix, dimension } = this.store.vectors();
      vector = nearestRows(matrix, dimension, q as Float32Array, CANDIDATES).map((r) => ({
        id: ids[r.row] as number,
        score: r.score,
      }));
    }
    const ranked =
      mode === 'lexical'
        ? lexical.map((id, i) => ({ id, score: -(i + 1) }))
        : mode === 'vector'
          ? vector
          : reciprocalRankFusion(
              [lexical, vector.map((v) => v.id)],
              this.options.fusion?.k ?? HYBRID_FUSION.k,
              [1, this.options.fusion?.vectorWeight ?? HYBRID_FUSION.vectorWeight],
            );
    const perSource = Math.max(1, options.maxPerSource ?? 2);
    const taken = new Map<string, number>();
    const rows = this.store.chunks(ranked.slice(0, CANDIDATES * 2).map((r) => r.id));
    const top = ranked
      .filter(({ id }) => {
        const source = rows.get(id)?.source;
        if (source === undefined) return false;
        const count = taken.get(source) ?? 0;
        if (count >= perSource) return false;
        taken.set(source, count + 1);
        return true;
      })
      .slice(0, topK);
    return top.flatMap(({ id, score }) => {
      const row = rows.get(id);
      if (!row) return [];
      return [
        {
          source: row.source,
          ...(row.title && { title: row.title }),
          heading: row.heading,
          text: row.text,
          score,
        },
      ];
    });
  }

  close(): void {
    this.store.close();
    void this.downloader.close();
  }
}

function statsOf(store: KnowledgeStore): KnowledgeStats {
  const counts = store.counts();
  const dimension = store.meta('embedding_dimension');
  return {
    store: store.path,
    ...counts,
    lastBuild: store.meta('last_build') ?? null,
    embeddingModel: store.meta('embedding_model') ?? null,
    dimension: dimension === undefined ? null : Number(dimension),
  };
}
