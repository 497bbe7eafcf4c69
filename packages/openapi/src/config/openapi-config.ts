import { ConfigError, describeZodIssues } from '@raf/core';
import { camelCaseKeys as camelKeys, httpConfigShape } from '@raf/web/http';
import { z } from 'zod';

/**
 * Credentials for the API. Which header or query parameter carries them comes from the spec's
 * security schemes; `auth` overrides that for specs that declare none.
 */
export const openapiConnectionSchema = z.preprocess(
  camelKeys,
  z.strictObject({
    kind: z.enum(['key', 'anonymous', 'remote', 'reference', 'foundry', 'oauth']).optional(),
    /** The API key or bearer token. */
    apiKey: z.string().optional(),
    /** An environment variable holding the key (when `apiKey` is not given). */
    keyEnvVar: z.string().optional(),
    username: z.string().optional(),
    password: z.string().optional(),
    /** The API's base URL, overriding the spec's `servers` / `host`. */
    endpoint: z.string().optional(),
    /**
     * The spec's security scheme these credentials belong to (e.g. `petstore_auth`); without it,
     * the first scheme of each operation the credentials can fill is used.
     */
    scheme: z.string().min(1).optional(),
    /** Extra headers sent with every call. */
    headers: z.record(z.string(), z.string()).optional(),
    auth: z
      .strictObject({
        type: z.enum(['bearer', 'apiKey', 'basic']),
        in: z.enum(['header', 'query']).optional(),
        name: z.string().min(1).optional(),
      })
      .optional()
      .describe('how to send the credentials when the spec declares no security scheme'),
  }),
);

/**
 * `config:` of a `kind: openapi` entry. `specUrl`/`operationId` may also sit on the entry itself
 * (the upstream fields); `specPath`, `operations` and `connection` live here.
 */
export const openapiConfigSchema = z.preprocess(
  camelKeys,
  z.strictObject({
    specUrl: z.string().min(1).optional().describe('where the spec is served (JSON or YAML)'),
    specPath: z.string().min(1).optional().describe('a spec file, relative to the agent file'),
    allowFileRefs: z
      .boolean()
      .optional()
      .describe(
        'let a specPath spec $ref other files of its own folder (default false: internal and http(s) $refs only)',
      ),
    operations: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('operationIds to expose (default: every operation)'),
    connection: openapiConnectionSchema.optional(),
    baseUrl: z.string().min(1).optional().describe("the API's base URL, overriding the spec"),
    toolPrefix: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,20}$/)
      .optional()
      .describe('prepended to each tool name'),
    ...httpConfigShape,
  }),
);

export type OpenApiConfig = z.output<typeof openapiConfigSchema>;
export type OpenApiConnection = z.output<typeof openapiConnectionSchema>;

export function safeParseOpenApiConfig(
  config: unknown,
): { success: true; data: OpenApiConfig } | { success: false; error: ConfigError } {
  const parsed = openapiConfigSchema.safeParse(config ?? {});
  if (parsed.success) return { success: true, data: parsed.data };
  return {
    success: false,
    error: new ConfigError(`kind: openapi config: ${describeZodIssues(parsed.error)}`, {
      cause: parsed.error,
    }),
  };
}

/** Parses a `kind: openapi` config; a problem is a `ConfigError` naming the field. */
export function parseOpenApiConfig(config: unknown): OpenApiConfig {
  const parsed = safeParseOpenApiConfig(config);
  if (!parsed.success) throw parsed.error;
  return parsed.data;
}
