import { defineTool, getErrorMessage, type ITool, toolFailure, toolSuccess } from '@raf/core';
import * as z from 'zod';
import { builtinManifest } from '../runtime-policy/builtin-manifests.js';
import type { MemoryBundle } from './memory-bundle.js';

/** `memory_save {topic, content}`: appends one entry to the topic's page (merging with concurrent writers). */
export function createMemorySaveTool(bundle: MemoryBundle): ITool {
  return defineTool({
    name: 'memory_save',
    description:
      'Save one fact to persistent memory now. topic: soul, user, rules, lesson, preference, or a domain path "topic/chapter/section".',
    parameters: z.object({
      topic: z.string().min(1).describe('soul | user | rules | lesson | preference | topic/chapter/section'),
      content: z.string().min(1).describe('The fact to remember, in a sentence or a short paragraph'),
    }),
    manifest: builtinManifest('memory_save'),
    kind: 'memory',
    execute: async ({ topic, content }, { signal }) => {
      try {
        const saved = await bundle.save(topic, content, signal);
        return toolSuccess({ saved: saved.path, entry: saved.id, created: saved.created });
      } catch (error) {
        if (signal.aborted) throw error;
        return toolFailure(getErrorMessage(error));
      }
    },
  });
}

/** `memory_recall {query, limit?}`: full-text search over the bundle, best pages first. */
export function createMemoryRecallTool(bundle: MemoryBundle): ITool {
  return defineTool({
    name: 'memory_recall',
    description:
      'Search persistent memory (full text over every page). Returns the best pages with the matching lines.',
    parameters: z.object({
      query: z.string().min(1).describe('Words to look for'),
      limit: z.number().int().min(1).max(20).optional().describe('How many pages (default 5)'),
    }),
    manifest: builtinManifest('memory_recall'),
    kind: 'memory',
    execute: async ({ query, limit }, { signal }) => {
      try {
        const hits = await bundle.recall(query, { limit: limit ?? 5, signal });
        return toolSuccess({ query, hits: hits.map((h) => ({ ...h })) });
      } catch (error) {
        if (signal.aborted) throw error;
        return toolFailure(getErrorMessage(error));
      }
    },
  });
}
