import { resolve } from 'node:path';
import { MemoryError } from '@raf/core';
import { readBundleText, writeBundleText } from './bundle-files.js';
import { listMarkdown, pageForTopic } from './bundle-layout.js';
import { withFileLock } from './bundle-lock.js';
import { seedBundle } from './bundle-template.js';
import { appendBlock, newEntryId, renderEntry } from './entries.js';
import { renderPage } from './frontmatter.js';
import { beginChange, endChange, indexPage } from './pending-changes.js';
import { type RecallHit, RecallIndex } from './recall-index.js';

export interface SavedEntry {
  /** The page, relative to the bundle. */
  path: string;
  id: string;
  /** The page did not exist before. */
  created: boolean;
  /** Indexes that got a row for the new page. */
  indexed: string[];
}

const MAX_CONTENT = 20_000;

/**
 * One memory bundle on disk: `save` appends an entry to the page of a topic (under the page's
 * lock, so concurrent writers merge), `recall` searches it. Instances are cheap; the recall index
 * is built on the first search.
 */
export class MemoryBundle {
  readonly root: string;
  private readonly index: RecallIndex;
  private seeding: Promise<string[]> | undefined;

  constructor(directory: string) {
    this.root = resolve(directory);
    this.index = new RecallIndex(this.root);
  }

  /** Seeds the bundle from the template once per instance (see `seedBundle`). */
  seed(signal?: AbortSignal): Promise<string[]> {
    this.seeding ??= seedBundle(this.root, signal ? { signal } : {}).catch((error: unknown) => {
      this.seeding = undefined;
      throw error;
    });
    return this.seeding;
  }

  async save(topic: string, content: string, signal?: AbortSignal): Promise<SavedEntry> {
    if (!content.trim()) throw new MemoryError('content is empty: give the fact to remember');
    if (content.length > MAX_CONTENT)
      throw new MemoryError(`content has ${content.length} characters; at most ${MAX_CONTENT} per entry`);
    const page = pageForTopic(topic);
    await this.seed(signal);
    // The id (its time) is taken under the lock: a curator's rewrite keeps the entries saved after
    // its job began, and an id taken before waiting for the lock could predate the job yet land after
    // the curator read the page.
    let id = '';
    const title = page.levels.at(-1) ?? page.path.replace(/^references\/|\.md$/g, '');
    let record: string | undefined;
    const text = await withFileLock(
      this.root,
      page.path,
      async () => {
        id = newEntryId();
        // A link planted at the page (or a folder on its way) is refused, never followed.
        let current = await readBundleText(this.root, page.path, signal);
        if (current === undefined) {
          record = await beginChange(this.root, { op: 'create', page: page.path });
          current = renderPage(
            { type: page.type, title, description: `Memory about ${topic.trim()}` },
            `# ${title}\n`,
          );
        }
        const next = appendBlock(current, renderEntry(id, content));
        await writeBundleText(this.root, page.path, next, signal);
        return next;
      },
      signal,
    );
    await this.index.update(page.path, text);
    let indexed: string[] = [];
    if (record) {
      indexed = await indexPage(this.root, page.path, signal);
      await endChange(record);
    }
    return { path: page.path, id, created: record !== undefined, indexed };
  }

  /** Full-text search over the bundle's pages (archived pages, indexes and the guide left out). */
  recall(query: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<RecallHit[]> {
    if (!query.trim()) return Promise.resolve([]);
    return this.index.search(query, options.limit ?? 5, options.signal);
  }

  /** Tells the recall index about a page another component of this process wrote. */
  noteWritten(rel: string, text: string | undefined): Promise<void> {
    return this.index.update(rel, text);
  }

  /** Every page with its frontmatter title, for the curator's view of the bundle. */
  async pages(signal?: AbortSignal): Promise<string[]> {
    return listMarkdown(this.root, signal);
  }
}
