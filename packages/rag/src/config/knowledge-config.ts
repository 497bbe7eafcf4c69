import { z } from 'zod';

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
const BASE_URL_SPELLINGS = new Set(['baseUrl', 'baseURL', 'endpoint', 'url']);

/** Nested keys in camelCase or the upstream snake_case; `base_url`, `endpoint` and `url` mean `baseURL`. */
function canonicalKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      const name = camel(key);
      return [BASE_URL_SPELLINGS.has(name) ? 'baseURL' : name, v];
    }),
  );
}

/** `config.embeddings`: an OpenAI-compatible `/embeddings` endpoint, or `none` for lexical only. */
export const embeddingsConfigSchema = z.union([
  z.literal(false),
  z.literal('none'),
  z.preprocess(
    canonicalKeys,
    z.strictObject({
      model: z.string().min(1),
      baseURL: z.url({ protocol: /^https?$/ }).optional(),
      apiKey: z.string().optional(),
      headers: z.record(z.string(), z.string()).optional(),
      batchSize: z.number().int().min(1).max(2048).optional(),
      dimensions: z.number().int().positive().optional(),
      maxRetries: z.number().int().min(0).max(10).optional(),
      timeoutMs: z.number().int().positive().optional(),
    }),
  ),
]);

/** `kind: knowledge` config (SPEC §9). */
export const knowledgeConfigSchema = z
  .object({
    /** Files, folders, globs (relative to the agent file's folder) and http(s) URLs. */
    source: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .optional()
      .meta({ aliases: ['sources'] }),
    /** The index file (default `.raf/knowledge/<name>.db` beside the agent file). */
    store: z.string().min(1).optional(),
    embeddings: embeddingsConfigSchema.optional(),
    chunkSize: z.number().int().min(16).max(8192).optional(),
    chunkOverlap: z.number().int().min(0).optional(),
    chunker: z.enum(['auto', 'markdown', 'recursive']).optional(),
    /** Passages injected per run (0: none, the tool only). */
    topK: z.number().int().min(0).max(20).optional(),
    retrieval: z.enum(['hybrid', 'lexical', 'vector']).optional(),
    /** Hybrid fusion: Σ weight / (k + rank); BM25 weighs 1, vectors `vectorWeight` (defaults 10 and 0.5). */
    fusion: z
      .strictObject({
        k: z.number().min(1).max(1000).optional(),
        vectorWeight: z.number().min(0).max(10).optional(),
      })
      .optional(),
    autoRefresh: z.boolean().optional(),
    /** Per-document budgets (defaults: 32 MiB inflated, 2,000 pages, 30 s): a document over one is refused. */
    documentLimits: z
      .strictObject({
        inflatedBytes: z.number().int().positive().optional(),
        pages: z.number().int().positive().optional(),
        timeMs: z.number().int().positive().optional(),
      })
      .optional(),
    /**
     * Private addresses URL sources may reach (CIDR ranges, addresses, host names): downloads go
     * through the SSRF guard of `@raf/web/http`, which refuses them otherwise, on every redirect.
     */
    allowPrivate: z.array(z.string().min(1)).optional(),
    maxInjectedChars: z.number().int().min(0).optional(),
  })
  .superRefine((config, ctx) => {
    if ((config.chunkOverlap ?? 50) >= (config.chunkSize ?? 512)) {
      ctx.addIssue({
        code: 'custom',
        path: ['chunkOverlap'],
        message: `must be smaller than chunkSize (${config.chunkSize ?? 512})`,
      });
    }
    const lexicalOnly =
      config.embeddings === undefined || config.embeddings === false || config.embeddings === 'none';
    if (lexicalOnly && (config.retrieval === 'vector' || config.retrieval === 'hybrid')) {
      ctx.addIssue({
        code: 'custom',
        path: ['retrieval'],
        message: `${config.retrieval} retrieval needs embeddings`,
      });
    }
  });

export type KnowledgeConfig = z.output<typeof knowledgeConfigSchema>;
