import { CancelledError } from '@raf/core';

/** Retries after the first attempt and the backoff, the same defaults as `@raf/client`. */
export interface EmbeddingRetryOptions {
  maxRetries?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A server's Retry-After is honoured up to this; longer waits fall back to backoff. */
  maxRetryAfterMs?: number;
}

export const EMBEDDING_RETRY: Required<EmbeddingRetryOptions> = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

type Headers = Record<string, string | string[] | undefined>;

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** As the chat client decides: `x-should-retry` first, then 408, 409, 429 and 5xx. */
export function retryableStatus(status: number, headers: Headers): boolean {
  const override = first(headers['x-should-retry']);
  if (override === 'true' || override === 'false') return override === 'true';
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The wait a response asks for (`retry-after-ms`, `retry-after` seconds or date), if acceptable. */
export function retryAfterMs(headers: Headers, maxMs: number): number | undefined {
  const ms = Number(first(headers['retry-after-ms']) ?? Number.NaN);
  const after = first(headers['retry-after']);
  let wait = Number.isFinite(ms) ? ms : undefined;
  if (wait === undefined && after !== undefined && after.trim() !== '') {
    const seconds = Number(after);
    wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
  }
  return wait !== undefined && Number.isFinite(wait) && wait >= 0 && wait <= maxMs ? wait : undefined;
}

/** Exponential backoff with up to a quarter of jitter taken off. */
export function backoffMs(retry: number, options: Required<EmbeddingRetryOptions>): number {
  return Math.min(options.initialDelayMs * 2 ** retry, options.maxDelayMs) * (1 - Math.random() * 0.25);
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new CancelledError('embedding request cancelled'));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CancelledError('embedding request cancelled'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
