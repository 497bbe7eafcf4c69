import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ServerLog } from './server-log.js';

/** Entries of one list read at most (tools, resources, templates, prompts). */
const MAX_LISTED = 10_000;
/** Pages of a list read at most: a server that answers empty pages with a cursor forever hung the build. */
const MAX_PAGES = 1000;
/** A tool's input schema is sent on every request: one larger than this is not offered. */
const MAX_SCHEMA_BYTES = 64 * 1024;

/** One page of a server's list: its entries and the cursor of the next page, if any. */
export type ListPage<T> = (cursor: string | undefined) => Promise<{ items: T[]; next?: string | undefined }>;

/**
 * A server's whole list, page after page, bounded: at most `MAX_LISTED` entries and `MAX_PAGES`
 * pages, and a cursor given twice ends it (it would page in a circle). A list cut short says so in
 * the server's log.
 */
export async function listAll<T>(page: ListPage<T>, log: ServerLog): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES && items.length < MAX_LISTED; pages++) {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.next;
    if (!cursor) return items;
    if (seen.has(cursor)) break;
    seen.add(cursor);
  }
  if (cursor)
    log.event(
      `list cut at ${items.length} entries: the server kept paging (at most ${MAX_LISTED} entries, ${MAX_PAGES} pages)`,
    );
  return items.slice(0, MAX_LISTED);
}

/**
 * The listed tools RAF offers. Tools that only run as tasks need the SDK's experimental task API:
 * not offered. Nor is a tool whose input schema would weigh on every request (a description can
 * be cut; a schema cannot); the log says which.
 */
export function callableTools(listed: readonly Tool[], log: ServerLog): Tool[] {
  return listed.filter((tool) => {
    if (tool.execution?.taskSupport === 'required') return false;
    const size = Buffer.byteLength(JSON.stringify(tool.inputSchema ?? {}), 'utf8');
    if (size <= MAX_SCHEMA_BYTES) return true;
    log.event(`tool ${tool.name} left out: its input schema has ${size} bytes (at most ${MAX_SCHEMA_BYTES})`);
    return false;
  });
}
