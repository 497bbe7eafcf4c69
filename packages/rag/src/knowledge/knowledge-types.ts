import type { IndexRefreshOptions } from '@raf/core';
import type { IEmbeddingModel } from '../embed/embedding-model.js';

export type ChunkerName = 'auto' | 'markdown' | 'recursive';
export type RetrievalMode = 'hybrid' | 'lexical' | 'vector';

export interface KnowledgeBaseOptions {
  /** Files, folders, globs (relative to `baseDir`) and http(s) URLs. */
  sources: readonly string[];
  /** Where relative sources resolve (default: the current directory). */
  baseDir?: string;
  /** The SQLite file (created with its folder); `:memory:` for a throw-away index. */
  store: string;
  /** Without one the index is lexical only (BM25). */
  embeddings?: IEmbeddingModel;
  /** Estimated tokens per chunk (default 512) and overlap (default 50). */
  chunkSize?: number;
  chunkOverlap?: number;
  /** `auto` (default): markdown-aware for md and html, recursive for txt and pdf. */
  chunker?: ChunkerName;
  /**
   * Private addresses URL sources may reach (CIDR ranges, addresses, host names; the SSRF guard's
   * `allowPrivate`): every download, redirects included, goes through the `@raf/web/http` guard.
   */
  allowPrivate?: readonly string[];
  /** How hybrid search fuses the BM25 and vector rankings (default `HYBRID_FUSION`: k 10, vector weight 0.5). */
  fusion?: { k?: number; vectorWeight?: number };
  /** Per-document budgets (see `DEFAULT_DOCUMENT_LIMITS`): a document over one is refused, not indexed. */
  documentLimits?: {
    inflatedBytes?: number | undefined;
    pages?: number | undefined;
    timeMs?: number | undefined;
  };
}

export type RefreshOptions = IndexRefreshOptions;

/** What one refresh did. */
export interface RefreshReport {
  documents: number;
  chunks: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Chunks sent to the embeddings endpoint in this refresh. */
  embedded: number;
  /** Sources that could not be read or parsed (their previous index entry, if any, is kept). */
  failed: { source: string; error: string }[];
  /** Sources that matched nothing or do not exist. */
  problems: string[];
}

export interface KnowledgeHit {
  /** The file (relative to the agent's folder) or URL. */
  source: string;
  title?: string;
  /** The heading path of the chunk (`Install > From npm`), empty when none. */
  heading: string;
  text: string;
  /** Higher is better: RRF score (hybrid), cosine similarity (vector), negated BM25 rank (lexical). */
  score: number;
}

export interface SearchOptions {
  topK?: number;
  /** Most passages from one source (default 2), so one long file cannot fill every slot. */
  maxPerSource?: number;
  mode?: RetrievalMode;
  signal?: AbortSignal;
}

/** The state `raf inspect` shows. */
export interface KnowledgeStats {
  store: string;
  documents: number;
  chunks: number;
  vectors: number;
  lastBuild: string | null;
  embeddingModel: string | null;
  dimension: number | null;
}
