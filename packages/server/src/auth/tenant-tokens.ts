import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { ConfigError, getErrorMessage } from '@raf/core';
import { newLocalToken, sameToken } from '@raf/framework';
import { z } from 'zod';
import { firstJsonKeyProblem } from './json-keys.js';

/** Shorter tokens could be guessed. */
const MIN_TOKEN_LENGTH = 16;
/** What a bearer token may hold (RFC 6750's b64token is narrower; any visible ASCII is sent as is). */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/** A tokens file is a short JSON object; a larger one is a mistake (or not a tokens file). */
const MAX_TOKENS_FILE_BYTES = 1024 * 1024;

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
      // A space, a control or a non-ASCII character cannot come back in `Authorization: Bearer`
      // as written (headers are trimmed, split, Latin-1): such a token would never match.
      else if (!VISIBLE_ASCII.test(token))
        ctx.addIssue({
          code: 'custom',
          message: `token number ${i + 1} has a space, a control or a non-ASCII character`,
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

  /**
   * Reads `--tokens FILE`: a regular file of at most 1 MiB, opened non-blocking (a FIFO named by
   * mistake is refused, never waited on).
   */
  static async fromFile(path: string, signal?: AbortSignal): Promise<TenantTokens> {
    let text: string;
    try {
      text = await readTokensFile(path, signal);
    } catch (error) {
      if (ConfigError.isInstance(error)) throw error;
      throw new ConfigError(`--tokens ${path}: cannot read it: ${getErrorMessage(error)}`, { cause: error });
    }
    let value: unknown;
    // A byte-order mark (an editor's) is no JSON, but no mistake either.
    const json = text.replace(/^\uFEFF/, '');
    try {
      value = JSON.parse(json);
    } catch (error) {
      throw new ConfigError(`--tokens ${path}: not valid JSON: ${getErrorMessage(error)}`, { cause: error });
    }
    // `JSON.parse` keeps the last of a repeated token (its tenant silently replaced) and the
    // schema drops `__proto__`: both refused, by line (never the token itself, which may be logged).
    const problem = firstJsonKeyProblem(json, 1);
    if (problem)
      throw new ConfigError(
        problem.kind === 'proto'
          ? `--tokens ${path}:${problem.line}: a "__proto__" key is not a token (expected a JSON object {"<token>": "<tenant>"})`
          : `--tokens ${path}:${problem.line}: token number ${problem.index} repeats an earlier token (each token names one tenant)`,
      );
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

async function readTokensFile(path: string, signal?: AbortSignal): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ConfigError(`--tokens ${path}: not a regular file`);
    if (info.size > MAX_TOKENS_FILE_BYTES)
      throw new ConfigError(`--tokens ${path}: larger than ${MAX_TOKENS_FILE_BYTES} bytes`);
    return await handle.readFile({ encoding: 'utf8', ...(signal && { signal }) });
  } finally {
    await handle.close();
  }
}
