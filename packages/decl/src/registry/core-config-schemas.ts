import { safeParseScopePolicy } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';

// Each schema is built on first use (a `config:` of its kind to check): an agent that declares no
// memory never builds the memory schemas, and importing the package builds none.

// `.meta({ policyBearing: true })`: a misspelt key of this name is always an error (check-config.ts).
const policyBearing = { policyBearing: true } as const;

/** `kind: workspace` config (SPEC §4 rule 1). */
export const workspaceConfigSchema = onFirstUse(() =>
  z.object({
    root: z.string().min(1, "must not be empty (write '.' for the agent file's folder)").optional(),
    roots: z.array(z.string().min(1)).optional(),
    // An unknown value is an error at its line, never a fallback (SPEC §9).
    policy: z
      .string()
      .superRefine((value, ctx) => {
        const parsed = safeParseScopePolicy(value);
        if (!parsed.success) ctx.addIssue({ code: 'custom', message: parsed.error.message });
      })
      .optional()
      .meta(policyBearing),
    allowCommands: z
      .array(z.string())
      .optional()
      .meta({ ...policyBearing, aliases: ['allowed_commands', 'allowedCommands'] }),
    network: z.boolean().optional().meta(policyBearing),
    readableOutside: z.array(z.string()).optional().meta(policyBearing),
    env: z.record(z.string(), z.string()).optional(),
    /** Create a missing `root` when the agent is built (never in `validate`). */
    create: z.boolean().optional(),
  }),
);

/** `kind: skills` config (rule 2). */
export const skillsConfigSchema = onFirstUse(() =>
  z.object({
    directory: z.string().min(1).optional(),
  }),
);

/** `kind: compression` config (rule 7); the strategy comes from `name` or `strategy`. */
export const compressionConfigSchema = onFirstUse(() =>
  z.object({
    strategy: z.enum(['sliding_window', 'token_budget', 'summarize']).optional(),
    maxTokens: z.number().int().positive().optional(),
    windowSize: z.number().int().positive().optional(),
    toolResultEvictionThreshold: z.number().min(0).max(1).optional(),
    keepRecentShare: z.number().gt(0).lt(1).optional(),
    prompt: z.string().min(1).optional(),
    tokenCounter: z.enum(['estimate', 'exact']).optional(),
    model: z.string().optional(),
  }),
);

/** The built-in file and shell tools take no config. */
export const fileToolConfigSchema = onFirstUse(() => z.object({}));

const camelKey = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** `memoryModel`: a local model for the curator (built by `@raf/llama`); keys in either case, `path` for `modelPath`. */
export const memoryModelSchema = onFirstUse(() =>
  z.preprocess(
    (value) => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(value)) out[key === 'path' ? 'modelPath' : camelKey(key)] = v;
      return out;
    },
    z.strictObject({
      provider: z.enum(['llama', 'gguf', 'local', 'lm']).optional(),
      modelPath: z.string().min(1),
      id: z.string().min(1).optional(),
      tokenizerPath: z.string().min(1).optional(),
      temperature: z.number().min(0).max(2).optional(),
      topP: z.number().gt(0).max(1).optional(),
      maxTokens: z.number().int().positive().optional(),
      seed: z.number().int().optional(),
      useGpu: z.boolean().optional(),
    }),
  ),
);

/** `kind: memory` (and the older `kind: bundle`) config: super-brain memory (SPEC §6). */
export const memoryConfigSchema = onFirstUse(() =>
  z.object({
    directory: z.string().min(1).optional(),
    enabled: z.boolean().optional(),
    consolidationInterval: z.number().int().min(0, 'must be 0 (off) or more').optional(),
    memoryModel: memoryModelSchema().optional(),
    language: z.enum(['en', 'zh-CN']).optional(),
  }),
);

export type MemoryConfig = z.output<ReturnType<typeof memoryConfigSchema>>;
