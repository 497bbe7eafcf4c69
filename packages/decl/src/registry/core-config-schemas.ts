import { z } from 'zod';

// `.meta({ policyBearing: true })`: a misspelt key of this name is always an error (check-config.ts).
const policyBearing = { policyBearing: true } as const;

/** `kind: workspace` config (SPEC §4 rule 1). */
export const workspaceConfigSchema = z.object({
  root: z.string().min(1, "must not be empty (write '.' for the agent file's folder)").optional(),
  roots: z.array(z.string().min(1)).optional(),
  policy: z.string().optional().meta(policyBearing),
  allowCommands: z
    .array(z.string())
    .optional()
    .meta({ ...policyBearing, aliases: ['allowed_commands', 'allowedCommands'] }),
  network: z.boolean().optional().meta(policyBearing),
  readableOutside: z.array(z.string()).optional().meta(policyBearing),
  env: z.record(z.string(), z.string()).optional(),
  /** Create a missing `root` when the agent is built (never in `validate`). */
  create: z.boolean().optional(),
});

/** `kind: skills` config (rule 2). */
export const skillsConfigSchema = z.object({
  directory: z.string().min(1).optional(),
});

/** `kind: compression` config (rule 7); the strategy comes from `name` or `strategy`. */
export const compressionConfigSchema = z.object({
  strategy: z.enum(['sliding_window', 'token_budget', 'summarize']).optional(),
  maxTokens: z.number().int().positive().optional(),
  windowSize: z.number().int().positive().optional(),
  toolResultEvictionThreshold: z.number().min(0).max(1).optional(),
  keepRecentShare: z.number().gt(0).lt(1).optional(),
  prompt: z.string().min(1).optional(),
  tokenCounter: z.enum(['estimate', 'exact']).optional(),
  model: z.string().optional(),
});

/** The built-in file and shell tools take no config. */
export const fileToolConfigSchema = z.object({});
