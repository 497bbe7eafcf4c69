import { z } from 'zod';

/** `kind: wiki` config (SPEC §9). */
export const wikiConfigSchema = z.object({
  /** The wiki folder, relative to the agent file's folder. */
  source: z
    .string()
    .min(1)
    .optional()
    .meta({ aliases: ['directory', 'path'] }),
  /** Offer `wiki_write`. */
  writable: z.boolean().optional(),
  /** Pages suggested per run (0: none). */
  topK: z.number().int().min(0).max(20).optional(),
  /** Follow edits on disk (default true). */
  watch: z.boolean().optional(),
});

export type WikiConfig = z.output<typeof wikiConfigSchema>;
