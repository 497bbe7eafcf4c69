import { createToolManifest, defineTool, type ITool, toolFailure, toolSuccess } from '@raf/core';
import { z } from 'zod';
import type { Wiki } from '../wiki/wiki.js';
import type { ProtectedCheck } from '../wiki/wiki-writer.js';

type Open = (signal: AbortSignal) => Promise<Wiki>;

const readOnly = createToolManifest({ kind: 'custom', executionMode: 'parallel' });

async function guarded<T>(work: () => Promise<T>): Promise<T | ReturnType<typeof toolFailure>> {
  try {
    return await work();
  } catch (error) {
    return toolFailure(`wiki: ${(error as Error).message}`);
  }
}

export function createWikiSearchTool(name: string, open: Open): ITool {
  return defineTool({
    name: 'wiki_search',
    description: `Full-text search of the wiki '${name}': titles, tags and page text. Returns page ids with a snippet; read a page with wiki_page.`,
    parameters: z.object({
      query: z.string().min(1).describe('Words to look for'),
      top_k: z.number().int().min(1).max(50).optional().describe('How many pages (default 5)'),
    }),
    kind: 'wiki',
    manifest: readOnly,
    execute: ({ query, top_k }, { signal }) =>
      guarded(async () => toolSuccess({ results: (await open(signal)).search(query, top_k ?? 5) })),
  });
}

export function createWikiPageTool(name: string, open: Open): ITool {
  return defineTool({
    name: 'wiki_page',
    description: `Read one page of the wiki '${name}' by id or title: its text, tags, links, backlinks and hash (pass the hash to wiki_write to change it).`,
    parameters: z.object({ page: z.string().min(1).describe('Page id (space/page or path) or title') }),
    kind: 'wiki',
    manifest: readOnly,
    execute: ({ page }, { signal }) =>
      guarded(async () => {
        const found = (await open(signal)).page(page);
        if (!found) return toolFailure(`no page '${page}' in wiki '${name}'; find one with wiki_search`);
        const { file: _file, layout: _layout, ...shown } = found;
        return toolSuccess(shown);
      }),
  });
}

export function createWikiConceptsTool(name: string, open: Open): ITool {
  return defineTool({
    name: 'wiki_concepts',
    description: `Concepts related to a page of the wiki '${name}' through [[links]], backlinks and shared tags; without a page, the most linked-to pages.`,
    parameters: z.object({
      page: z.string().min(1).optional().describe('Page id or title; omit for the central concepts'),
      top_k: z.number().int().min(1).max(50).optional().describe('How many (default 10)'),
    }),
    kind: 'wiki',
    manifest: readOnly,
    execute: ({ page, top_k }, { signal }) =>
      guarded(async () => {
        const wiki = await open(signal);
        if (page !== undefined && !wiki.page(page)) return toolFailure(`no page '${page}' in wiki '${name}'`);
        return toolSuccess({ concepts: wiki.concepts(page, top_k ?? 10) });
      }),
  });
}

export function createWikiWriteTool(name: string, open: Open, protectedReason?: ProtectedCheck): ITool {
  return defineTool({
    name: 'wiki_write',
    description: `Create or replace a page of the wiki '${name}'. To change an existing page, read it with wiki_page first and pass its hash as expected_hash; if someone edited it since, the write is refused.`,
    parameters: z.object({
      page: z
        .string()
        .min(1)
        .describe('Page id: space/page in a wiki with spaces, else a path such as notes/topic'),
      content: z.string().describe('The whole new markdown text of the page'),
      title: z.string().min(1).optional(),
      tags: z.array(z.string().min(1)).optional(),
      expected_hash: z
        .string()
        .optional()
        .describe('The hash wiki_page returned (required for an existing page)'),
    }),
    kind: 'wiki',
    // Writes one after another, in call order; a worker asks the main process, which owns the files.
    manifest: createToolManifest({ kind: 'custom', executionMode: 'sequential', requiresWrite: true }),
    execute: ({ page, content, title, tags, expected_hash }, context) =>
      guarded(async () => {
        const result = await (await open(context.signal)).write(
          {
            page,
            content,
            ...(title !== undefined && { title }),
            ...(tags !== undefined && { tags }),
            ...(expected_hash !== undefined && { expectedHash: expected_hash }),
          },
          context.signal,
          protectedReason,
        );
        if (!result.ok)
          return toolFailure(
            result.error,
            result.currentHash ? { current_hash: result.currentHash } : undefined,
          );
        return toolSuccess({ page: result.id, hash: result.hash, created: result.created });
      }),
  });
}
