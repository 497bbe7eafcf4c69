import { resolve, sep } from 'node:path';
import {
  type ChatMessage,
  type ContextResult,
  type IContextProvider,
  type IndexRefreshOptions,
  type InvokingContext,
  type ITool,
  type JSONValue,
  messageText,
  type ProtectedPath,
} from '@raf/core';
import {
  createWikiConceptsTool,
  createWikiPageTool,
  createWikiSearchTool,
  createWikiWriteTool,
} from '../tools/wiki-tools.js';
import { Wiki } from '../wiki/wiki.js';

export interface WikiContextProviderOptions {
  /** The wiki folder: upstream spaces (`_space.yaml`, `_page.yaml` + `content.md`) and/or markdown pages. */
  root: string;
  name?: string;
  /** Offer `wiki_write` (default false). */
  writable?: boolean;
  /** Pages suggested per run for the latest user message (default 3; 0: none). */
  topK?: number;
  /** Follow edits on disk (default true; never in a dry run). */
  watch?: boolean;
  /** `validate`/`inspect`: read the wiki, start no watcher. */
  dryRun?: boolean;
}

function latestUserText(input: readonly ChatMessage[], messages: readonly ChatMessage[]): string | undefined {
  for (const list of [input, messages])
    for (let i = list.length - 1; i >= 0; i--) {
      const m = list[i] as ChatMessage;
      if (m.role === 'user' && messageText(m).trim()) return messageText(m);
    }
  return undefined;
}

/**
 * `kind: wiki` (SPEC §9): suggests the pages that match the latest user message and offers
 * `wiki_search`, `wiki_page`, `wiki_concepts` and, when writable, `wiki_write`. The wiki is read
 * on first use and then follows edits on disk.
 */
export class WikiContextProvider implements IContextProvider {
  readonly kind = 'wiki';
  readonly injectsTools = true;
  readonly name: string;
  readonly tools: readonly ITool[];
  private opened: Promise<Wiki> | undefined;
  /** What the agent's definition loads (`protect()`): `wiki_write` never writes there. */
  private readonly loaded: ProtectedPath[] = [];

  constructor(private readonly options: WikiContextProviderOptions) {
    this.name = options.name ?? 'wiki';
    const open = (signal: AbortSignal) => this.wiki(signal);
    this.tools = [
      createWikiSearchTool(this.name, open),
      createWikiPageTool(this.name, open),
      createWikiConceptsTool(this.name, open),
      ...(options.writable
        ? [createWikiWriteTool(this.name, open, (file) => this.protectedReason(file))]
        : []),
    ];
  }

  /**
   * Adds paths the agent's definition executes or loads (skills folders, the memory bundle, the
   * instructions template, …), as `WorkspaceContextProvider.protect()` does: `@raf/decl` calls it
   * on every provider that has it once the entries are built.
   */
  protect(paths: readonly ProtectedPath[]): this {
    for (const entry of paths) this.loaded.push({ ...entry, path: resolve(entry.path) });
    return this;
  }

  private protectedReason(file: string): string | undefined {
    const target = resolve(file);
    return this.loaded.find((p) => target === p.path || target.startsWith(`${p.path}${sep}`))?.reason;
  }

  /**
   * The wiki, read on first use and watched from then on (unless `watch: false` or a dry run). The
   * first caller's signal stops the reading; a stopped read is tried again by the next caller.
   */
  wiki(signal?: AbortSignal): Promise<Wiki> {
    this.opened ??= Wiki.open(this.options.root, signal ? { signal } : {}).then(async (wiki) => {
      if (this.options.watch !== false && !this.options.dryRun) await wiki.watch();
      return wiki;
    });
    this.opened.catch(() => {
      this.opened = undefined; // a folder that appears later is read on the next run
    });
    return this.opened;
  }

  async onInvoking({ input, messages, signal }: InvokingContext): Promise<ContextResult> {
    const wiki = await this.wiki(signal);
    const query = latestUserText(input, messages);
    const topK = this.options.topK ?? 3;
    const hits = query && topK > 0 ? wiki.search(query, topK) : [];
    const lines = [
      `## Wiki: ${this.name}`,
      `${wiki.stats().pages} pages. Search with wiki_search, read with wiki_page, explore links with wiki_concepts${this.options.writable ? ', and write with wiki_write (pass the hash wiki_page gave)' : ''}.`,
      ...(hits.length
        ? ['Pages that match the latest message:', ...hits.map((h) => `- ${h.id} (${h.title}): ${h.snippet}`)]
        : []),
    ];
    return { instructions: lines.join('\n'), tools: [...this.tools] };
  }

  /** Reads every page again now (`raf index`). */
  async refreshIndex(options: IndexRefreshOptions = {}): Promise<Record<string, JSONValue>> {
    const wiki = await this.wiki(options.signal);
    options.onProgress?.({ phase: 'scan', done: 0, total: 1 });
    const loaded = await wiki.reload(options.signal ? { signal: options.signal } : {});
    options.onProgress?.({ phase: 'done', done: 1, total: 1 });
    const { root: _root, watching: _watching, lastLoad: _lastLoad, ...stats } = wiki.stats();
    return { ...stats, problems: loaded.problems };
  }

  /** Pages, links and layout for `raf inspect` (the wiki is read; nothing is created). */
  async describe(): Promise<Record<string, JSONValue>> {
    return { ...(await this.wiki()).stats() };
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    await (await opened?.catch(() => undefined))?.close();
  }
}
