import type { ContextResult, IContextProvider, InvokingContext, ITool, JSONValue } from '@raf/core';
import { KnowledgeBase } from '../knowledge/knowledge-base.js';
import type { KnowledgeBaseOptions, RefreshOptions, RetrievalMode } from '../knowledge/knowledge-types.js';
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
    // The run already brought the index up to date in onInvoking: a tool call only needs it built.
    this.searchTool = createKnowledgeSearchTool(this.name, () => this.ready(undefined, false), {
      topK: 5,
      ...(options.retrieval && { mode: options.retrieval }),
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

  async onInvoking({ input, messages, signal }: InvokingContext): Promise<ContextResult> {
    const base = await this.ready(signal);
    const topK = this.options.topK ?? 3;
    const query = latestUserText(input, messages);
    if (topK === 0 || query === undefined) return { tools: [this.searchTool] };
    const hits = await base.search(query, {
      topK,
      signal,
      ...(this.options.retrieval && { mode: this.options.retrieval }),
    });
    return {
      ...(hits.length > 0 && {
        instructions: formatHits(this.name, hits, this.options.maxInjectedChars ?? 6_000),
      }),
      tools: [this.searchTool],
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
