import { nodeCrypto } from '../lazy-builtins.js';
/** One fact saved by `memory_save`: a marked block a curator can fold in and concurrent writers can merge. */
export interface MemoryEntry {
  id: string;
  /** ISO time it was saved. */
  at: string;
  /** The whole block, markers included. */
  block: string;
}

const ENTRY = /<!-- entry:(\S+?) -->\n[\s\S]*?\n<!-- \/entry -->\n?/g;

export function newEntryId(at: Date = new Date()): string {
  return `${at.toISOString()}:${nodeCrypto().randomBytes(4).toString('hex')}`;
}

export function renderEntry(id: string, content: string): string {
  // A marker inside the content would end the block early.
  const safe = content.trim().replaceAll('<!--', '&lt;!--');
  return `<!-- entry:${id} -->\n${safe}\n<!-- /entry -->\n`;
}

export function parseEntries(text: string): MemoryEntry[] {
  const entries: MemoryEntry[] = [];
  for (const match of text.matchAll(ENTRY)) {
    const id = match[1] ?? '';
    entries.push({ id, at: id.slice(0, id.lastIndexOf(':')), block: match[0] });
  }
  return entries;
}

/** Appends an entry block to a page, with one blank line before it. */
export function appendBlock(page: string, block: string): string {
  const trimmed = page.replace(/\s+$/, '');
  return `${trimmed}\n\n${block.endsWith('\n') ? block : `${block}\n`}`;
}

/**
 * A rewrite of a page keeps every entry saved since `since` (while the rewriter was working):
 * entries of `current` at or after `since` that `next` lacks are appended to it. Older entries
 * the rewrite dropped were seen by it (folded in), so they stay out.
 */
export function keepNewEntries(next: string, current: string, since: string): string {
  const present = new Set(parseEntries(next).map((e) => e.id));
  let merged = next;
  for (const entry of parseEntries(current)) {
    if (entry.at >= since && !present.has(entry.id)) merged = appendBlock(merged, entry.block);
  }
  return merged;
}
