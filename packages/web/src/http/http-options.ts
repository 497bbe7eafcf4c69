import { z } from 'zod';

/** The defaults of the guarded client, named in READMEs and errors. */
export const HTTP_DEFAULTS = Object.freeze({
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  maxRedirects: 5,
  userAgent: 'raf-web/0.1 (+https://www.npmjs.com/package/@raf/web)',
});

/**
 * The guard's settings as a YAML `config` spells them; `@raf/web` and `@raf/openapi` both embed it.
 * `allowPrivate` entries are CIDR ranges (`10.0.0.0/8`), single addresses or host names.
 */
export const httpConfigShape = {
  allowPrivate: z
    .array(z.string().min(1))
    .optional()
    .describe('CIDR ranges, addresses or host names admitted although not public'),
  maxBytes: z.number().int().positive().optional().describe('largest response body, in bytes (default 5 MB)'),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('time for a whole request, redirects included (default 30000)'),
  maxRedirects: z.number().int().min(0).max(20).optional().describe('redirects followed (default 5)'),
  userAgent: z.string().min(1).optional(),
};

/** `max_bytes` → `maxBytes`: configs accept the upstream snake_case spelling of every key. */
export function camelCaseKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
      item,
    ]),
  );
}
