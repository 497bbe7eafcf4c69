import { ConfigError, describeZodIssues } from '@raf/core';
import { z } from 'zod';
import { FETCH_MODES } from '../fetch/extract.js';
import { camelCaseKeys as camelKeys, httpConfigShape } from '../http/http-options.js';

export const SEARCH_BACKENDS = ['duckduckgo', 'searxng', 'brave', 'tavily'] as const;
export type SearchBackendName = (typeof SEARCH_BACKENDS)[number];

/** Where an API key may come from besides `apiKey`: the upstream connection block. */
const connectionSchema = z.looseObject({
  kind: z.string().optional(),
  apiKey: z.string().optional(),
  endpoint: z.string().optional(),
  keyEnvVar: z.string().optional(),
});

/**
 * `config:` of a `kind: web` tool entry (both tools share it). Every key also accepts its
 * snake_case spelling.
 */
export const webConfigSchema = z.preprocess(
  camelKeys,
  z.strictObject({
    backend: z.enum(SEARCH_BACKENDS).default('duckduckgo').describe('web_search backend'),
    baseUrl: z.url().optional().describe("the backend's URL (required for searxng; others have a default)"),
    apiKey: z
      .string()
      .min(1)
      .optional()
      .describe('Brave or Tavily API key (default: BRAVE_API_KEY / TAVILY_API_KEY)'),
    connection: z.preprocess(camelKeys, connectionSchema).optional(),
    maxResults: z.number().int().min(1).max(20).default(5).describe('results when the model does not say'),
    region: z.string().optional().describe('DuckDuckGo region code, e.g. us-en, de-de'),
    defaultMode: z
      .enum(FETCH_MODES)
      .default('markdown')
      .describe('web_fetch mode when the model does not say'),
    maxChars: z
      .number()
      .int()
      .positive()
      .default(40_000)
      .describe('longest web_fetch content handed to the model'),
    ...httpConfigShape,
  }),
);

export type WebConfig = z.output<typeof webConfigSchema>;

/** Parses a `kind: web` config; a problem is a `ConfigError` naming the field. */
export function parseWebConfig(config: unknown): WebConfig {
  const parsed = safeParseWebConfig(config);
  if (!parsed.success) throw parsed.error;
  return parsed.data;
}

export function safeParseWebConfig(
  config: unknown,
): { success: true; data: WebConfig } | { success: false; error: ConfigError } {
  const parsed = webConfigSchema.safeParse(config ?? {});
  if (parsed.success) return { success: true, data: parsed.data };
  return {
    success: false,
    error: new ConfigError(`kind: web config: ${describeZodIssues(parsed.error)}`, { cause: parsed.error }),
  };
}
