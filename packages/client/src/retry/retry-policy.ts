export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** First backoff delay before jitter (default 500 ms); doubles each retry. */
  initialDelayMs?: number;
  /** Largest backoff delay (default 8 s). */
  maxDelayMs?: number;
  /** A server's Retry-After is honoured up to this (default 60 s); longer waits fall back to backoff. */
  maxRetryAfterMs?: number;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

export const DEFAULT_RETRY: ResolvedRetryOptions = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

export function resolveRetryOptions(
  options: RetryOptions | undefined,
  maxRetries?: number,
): ResolvedRetryOptions {
  const resolved = { ...DEFAULT_RETRY, ...options };
  if (maxRetries !== undefined) resolved.maxRetries = maxRetries;
  return resolved;
}

/** Statuses the mature SDKs retry: timeouts, lock conflicts, rate limits, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

type HeaderValue = string | string[] | undefined;
export type HeaderBag = Record<string, HeaderValue>;

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `x-should-retry: true|false` lets a server overrule the status-based decision. */
export function shouldRetryResponse(status: number, headers: HeaderBag): boolean {
  const override = header(headers, 'x-should-retry');
  if (override === 'true') return true;
  if (override === 'false') return false;
  return isRetryableStatus(status);
}

/**
 * The wait a server asks for, in ms: `retry-after-ms`, then `retry-after` as seconds or an HTTP
 * date. Returns undefined when absent, unparsable, negative or above `maxMs`.
 */
export function parseRetryAfter(
  headers: HeaderBag,
  maxMs: number,
  now: number = Date.now(),
): number | undefined {
  let ms: number | undefined;
  const msHeader = header(headers, 'retry-after-ms');
  if (msHeader !== undefined && msHeader.trim() !== '') {
    const value = Number(msHeader);
    if (Number.isFinite(value)) ms = value;
  }
  const afterHeader = header(headers, 'retry-after');
  if (ms === undefined && afterHeader !== undefined && afterHeader.trim() !== '') {
    const seconds = Number(afterHeader);
    if (Number.isFinite(seconds)) ms = seconds * 1000;
    else {
      const date = Date.parse(afterHeader);
      if (!Number.isNaN(date)) ms = date - now;
    }
  }
  if (ms === undefined || ms < 0 || ms > maxMs) return undefined;
  return ms;
}

/** Exponential backoff with up to 25% jitter taken off, as the OpenAI SDK does. */
export function backoffDelay(
  retry: number,
  options: ResolvedRetryOptions,
  random: () => number = Math.random,
): number {
  const base = Math.min(options.initialDelayMs * 2 ** retry, options.maxDelayMs);
  return base * (1 - random() * 0.25);
}
