import type { ContentCapabilities, ModelMetadata, ModelOptions } from '@raf/core';
import type { Dispatcher } from 'undici';
import type { RetryOptions } from '../retry/retry-policy.js';

export interface TimeoutOptions {
  /** TCP/TLS connect (default 10 s). */
  connectMs?: number;
  /** From sending the request to the first byte of the answer (default 60 s, the upstream's HTTP timeout). */
  firstChunkMs?: number;
  /** Longest silence between two chunks of a stream (default 60 s). */
  idleMs?: number;
  /** The whole call, retries and backoff included (default 10 min). */
  totalMs?: number;
}

export const DEFAULT_TIMEOUTS: Required<TimeoutOptions> = {
  connectMs: 10_000,
  firstChunkMs: 60_000,
  idleMs: 60_000,
  totalMs: 600_000,
};

/** What every HTTP chat client takes, whatever protocol it speaks. */
export interface HttpClientOptions {
  /** A label used in errors and `provider` (`openai`, `deepseek`, `anthropic`, `custom`, …). */
  provider?: string;
  model: string;
  apiKey?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** Default model options; per-run `modelOptions` override them field by field. */
  modelOptions?: ModelOptions;
  /** Merged into every request body (per-run `extraBody` wins). */
  extraBody?: Record<string, unknown>;
  modelMetadata?: ModelMetadata;
  /**
   * What the model takes besides text (`images`, `files`); by default what the provider's model
   * is known to take (Claude and GPT-4o-class models: both; others: neither). A message with a
   * part the model does not take fails before the request.
   */
  capabilities?: ContentCapabilities;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  retry?: RetryOptions;
  timeouts?: TimeoutOptions;
  /** Stream with SSE (default true); false asks for one JSON answer. */
  stream?: boolean;
  /** An undici dispatcher (proxy, custom TLS); by default an Agent with the connect timeout. */
  dispatcher?: Dispatcher;
}
