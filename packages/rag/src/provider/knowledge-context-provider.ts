import {
  CancelledError,
  ChatClientError,
  type ContextResult,
  getErrorMessage,
  type IContextProvider,
  type InvokingContext,
  type ITool,
  type JSONValue,
} from '@raf/core';
import { KnowledgeBase } from '../knowledge/knowledge-base.js';
import type {
  KnowledgeBaseOptions,
  KnowledgeHit,
  RefreshOptions,
  RetrievalMode,
} from '../knowledge/knowledge-types.js';
import { formatHits } from './format-hits.js';
import { createKnowledgeSearchTool } from './knowledge-search-tool.js';
import { latestUserText } from './latest-user-text.js';

export interface KnowledgeContextProviderOptions extends KnowledgeBaseOptions {
  /** The context's name (YAML `name`), shown in instructions and `inspect`. */
  name?: string;
  /** Passages injected per run (default 3; 0: none, the tool only) and the tool's default count. */
  topK?: number;
  retrieval?: RetrievalMode;
  /** Check the sources for changes before each run (default true; only changed files are read). */
  autoRefresh?: boolean;
  /** Most characters of passages injected per run (default 6,000). */
  maxInjectedChars?: number;
  /** `validate`/`inspect`: never build or open the index for writing. */
  dryRun?: boolean;
}

/**
 * `kind: knowledge` (SPEC §9): before each run it brings the index up to date (only changed
 * sources are read), injects the top passages for the latest user message as instructions, and
 * offers `knowledge_search`. The index is opened on first use, never when built for `validate`.
 */
export class KnowledgeContextProvider implements IContextProvider {
  readonly kind = 'knowledge';
  readonly injectsTools = true;
  readonly name: string;
  private readonly searchTool: ITool;
  private opened: Promise<KnowledgeBase> | undefined;
  private refreshed = false;

  constructor(private readonly options: KnowledgeContextProviderOptions) {
    this.name = options.name ?? 'knowledge';
    this.searchTool = createKnowledgeSearchTool(this.name, async (query, topK, signal) => {
      // The run already brought the index up to date in onInvoking: a call only needs it built.
      const base = await this.ready(signal, false);
      return this.search(base, query, topK, signal);
    });
  }

  /** The tools every run gets (what `raf inspect` lists as injected). */
  get tools(): readonly ITool[] {
    return [this.searchTool];
  }

  /** The index, opened (and built on first use) lazily. */
  base(): Promise<KnowledgeBase> {
    if (this.options.dryRun)
      return Promise.reject(new Error(`knowledge '${this.name}' is open for inspection only`));
    this.opened ??= KnowledgeBase.open(this.options);
    return this.opened;
  }

  private async ready(
    signal?: AbortSignal,
    checkSources = this.options.autoRefresh !== false,
  ): Promise<KnowledgeBase> {
    const base = await this.base();
    if (!this.refreshed || checkSources) {
      await base.refresh(signal ? { signal } : {});
      this.refreshed = true;
    }
    return base;
  }

  /**
   * Searches in the configured mode; when the embeddings endpoint fails, falls back to BM25 and
   * says so: an embeddings outage must not leave the agent without its knowledge base.
   */
  private async search(
    base: KnowledgeBase,
    query: string,
    topK: number,
    signal: AbortSignal,
  ): Promise<{ hits: KnowledgeHit[]; warning?: string }> {
    const mode = this.options.retrieval;
    try {
      return { hits: await base.search(query, { topK, signal, ...(mode && { mode }) }) };
    } catch (error) {
      if (!ChatClientError.isInstance(error)) throw error;
      return {
        hits: await base.search(query, { topK, signal, mode: 'lexical' }),
        warning: `knowledge '${this.name}': embeddings unavailable (${error.message}); lexical results only`,
      };
    }
  }

  async onInvoking({ input, messages, signal }: InvokingContext): Promise<ContextResult> {
    const warnings: string[] = [];
    let base: KnowledgeBase;
    try {
      base = await this.ready(signal);
    } catch (error) {
      // An index that opened but could not be refreshed (an embeddings outage, an unreadable
      // folder) still answers from what it holds; one that cannot open fails the provider.
      if (CancelledError.isInstance(error) || !this.opened) throw error;
      base = await this.opened;
      warnings.push(
        `knowledge '${this.name}': the index was not brought up to date (${getErrorMessage(error)}); searching what it holds`,
      );
    }
    const topK = this.options.topK ?? 3;
    const query = latestUserText(input, messages);
    const found =
      topK > 0 && query !== undefined ? await this.search(base, query, topK, signal) : { hits: [] };
    if (found.warning) warnings.push(found.warning);
    return {
      ...(found.hits.length > 0 && {
        instructions: formatHits(this.name, found.hits, this.options.maxInjectedChars ?? 6_000),
      }),
      tools: [this.searchTool],
      ...(warnings.length > 0 && { warnings }),
    };
  }

  /** Builds or refreshes the index now (`raf index`). */
  async refreshIndex(options: RefreshOptions = {}): Promise<Record<string, JSONValue>> {
    const report = await (await this.base()).refresh(options);
    this.refreshed = true;
    return { ...report, store: (await this.base()).storePath };
  }

  /** Index state for `raf inspect`: read from the file as it is, never created. */
  async describe(): Promise<Record<string, JSONValue>> {
    const stats = this.opened ? (await this.opened).stats() : await KnowledgeBase.inspect(this.options.store);
    const configured = this.options.embeddings?.modelId ?? null;
    if (!stats) return { store: this.options.store, built: false, embeddingModel: configured };
    return { ...stats, built: true, embeddingModel: stats.embeddingModel ?? configured };
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened) (await opened).close();
  }
}
