import { readFile } from 'node:fs/promises';
import { ConfigError, getErrorMessage } from '@raf/core';
import { newLocalToken, sameToken } from '@raf/framework';
import { z } from 'zod';

/** Shorter tokens could be guessed. */
const MIN_TOKEN_LENGTH = 16;

/** `--tokens FILE`: `{"<token>": "<tenant>"}`; short tokens are refused (guessable). */
const tokensFileSchema = z
  .record(z.string(), z.string().min(1, 'a tenant name must not be empty').max(200))
  .superRefine((tokens, ctx) => {
    Object.keys(tokens).forEach((token, i) => {
      // The token itself is never said back: the message may end up in a log.
      if (token.length < MIN_TOKEN_LENGTH)
        ctx.addIssue({
          code: 'custom',
          message: `token number ${i + 1} is shorter than ${MIN_TOKEN_LENGTH} characters`,
        });
    });
  });

/**
 * Bearer tokens and the tenant each belongs to. A lookup compares against every token in
 * constant time, so neither a token's prefix nor its position in the file leaks through timing.
 */
export class TenantTokens {
  private constructor(private readonly entries: readonly (readonly [string, string])[]) {}

  static fromObject(value: unknown, source = 'tokens'): TenantTokens {
    const parsed = tokensFileSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      // A path would be the token itself (a record key): say where by tenant only.
      const where =
        issue?.path.length && issue.code !== 'custom'
          ? ` (the tenant of token number ${Object.keys(value as object).indexOf(String(issue.path[0])) + 1})`
          : '';
      throw new ConfigError(
        `${source}${where}: ${issue?.message ?? 'invalid'} (expected a JSON object {"<token>": "<tenant>"})`,
      );
    }
    const entries = Object.entries(parsed.data);
    if (entries.length === 0) throw new ConfigError(`${source}: no tokens in it`);
    return new TenantTokens(entries);
  }

  /** Reads `--tokens FILE`. */
  static async fromFile(path: string, signal?: AbortSignal): Promise<TenantTokens> {
    let text: string;
    try {
      text = await readFile(path, { encoding: 'utf8', ...(signal && { signal }) });
    } catch (error) {
      throw new ConfigError(`--tokens ${path}: cannot read it: ${getErrorMessage(error)}`, { cause: error });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`--tokens ${path}: not valid JSON: ${getErrorMessage(error)}`, { cause: error });
    }
    return TenantTokens.fromObject(value, `--tokens ${path}`);
  }

  /** One generated token for one tenant (`raf serve` without `--tokens`, loopback only). */
  static generated(tenant = 'local'): { tokens: TenantTokens; token: string } {
    const token = newLocalToken();
    return { tokens: new TenantTokens([[token, tenant]]), token };
  }

  /** The tenant of a bearer token, or `undefined`. */
  tenantOf(token: string | undefined): string | undefined {
    let found: string | undefined;
    for (const [candidate, tenant] of this.entries) if (sameToken(token, candidate) && !found) found = tenant;
    return found;
  }
}
