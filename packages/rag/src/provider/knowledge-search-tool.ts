import { createToolManifest, defineTool, type ITool, toolFailure, toolSuccess } from '@raf/core';
import { z } from 'zod';
import type { KnowledgeHit } from '../knowledge/knowledge-types.js';

export type KnowledgeSearch = (
  query: string,
  topK: number,
  signal: AbortSignal,
) => Promise<{ hits: KnowledgeHit[]; warning?: string }>;

const parameters = z.object({
  query: z.string().min(1).describe('What to look for, in words likely to appear in the documents'),
  top_k: z.number().int().min(1).max(20).optional().describe('How many passages to return (default 5)'),
});

/** `knowledge_search {query, top_k?}`: passages from the knowledge base with their source and heading. */
export function createKnowledgeSearchTool(name: string, search: KnowledgeSearch): ITool {
  return defineTool({
    name: 'knowledge_search',
    description: `Search the knowledge base '${name}' and return the most relevant passages, each with its source file and heading.`,
    parameters,
    kind: 'knowledge',
    // Read-only and safe to run alongside other calls; a worker asks the main process, which
    // holds the index.
    manifest: createToolManifest({ kind: 'custom', executionMode: 'parallel' }),
    async execute({ query, top_k }, context) {
      try {
        const { hits, warning } = await search(query, top_k ?? 5, context.signal);
        return toolSuccess({
          ...(warning && { warning }),
          results: hits.map((h) => ({
            source: h.source,
            ...(h.title && { title: h.title }),
            heading: h.heading,
            text: h.text,
          })),
        });
      } catch (error) {
        return toolFailure(`knowledge search failed: ${(error as Error).message}`);
      }
    },
  });
}
