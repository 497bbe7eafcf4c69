import { CancelledError, ChatClientError, TimeoutError } from '@raf/core';
import { GuardedHttpClient, WebRequestError } from '@raf/web/http';
import { normalize } from '../search/exact-vector-search.js';
import type { IEmbeddingModel } from './embedding-model.js';
import {
  backoffMs,
  EMBEDDING_RETRY,
  type EmbeddingRetryOptions,
  retryAfterMs,
  retryableStatus,
  sleep,
} from './retry.js';

export interface OpenAIEmbeddingsOptions {
  model: string;
  /** Default `https://api.openai.com/v1`; any OpenAI-compatible server (Ollama, vLLM, llama.cpp, TEI). */
  baseURL?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Asks the server for shorter vectors (`text-embedding-3-*`). */
  dimensions?: number;
  retry?: EmbeddingRetryOptions;
  /** One request, from sending to the whole answer (default 60 s). */
  timeoutMs?: number;
}

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

const NETWORK_ERRORS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Bytes of answer allowed per input text (a 3,072-float vector as JSON is about 60 KB). */
const BYTES_PER_INPUT = 256 * 1024;

/**
 * Embeddings from an OpenAI-compatible `POST /embeddings` endpoint, through the SSRF guard of
 * `@raf/web/http` with the base URL's host allowed (a local server works; a redirect elsewhere
 * is not followed, and no other private address is reachable): texts go in
 * batches, failures are retried as the chat client retries them (429/5xx/`x-should-retry`,
 * `Retry-After`, exponential backoff, connection resets), vectors come back unit length.
 */
export class OpenAIEmbeddings implements IEmbeddingModel {
  readonly modelId: string;
  private readonly url: string;
  private readonly batchSize: number;
  private readonly retry: Required<EmbeddingRetryOptions>;
  private client: GuardedHttpClient | undefined;

  constructor(private readonly options: OpenAIEmbeddingsOptions) {
    this.modelId = options.model;
    this.url = `${(options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/embeddings`;
    this.batchSize = Math.max(1, options.batchSize ?? 64);
    this.retry = { ...EMBEDDING_RETRY, ...options.retry };
  }

  async embed(texts: readonly string[], { signal }: { signal: AbortSignal }): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      vectors.push(...(await this.request(texts.slice(start, start + this.batchSize), signal)));
    }
    return vectors;
  }

  /** The guarded client, made on the first request: only the configured endpoint's host is allowed. */
  private http(): GuardedHttpClient {
    this.client ??= new GuardedHttpClient({
      allowPrivate: [new URL(this.url).hostname],
      maxRedirects: 0,
      maxBytes: 1024 * 1024 + this.batchSize * BYTES_PER_INPUT,
      timeoutMs: this.options.timeoutMs ?? 60_000,
    });
    return this.client;
  }

  /** Closes the connections of the guarded client (a later `embed` opens new ones). */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close();
  }

  private async request(input: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    const body = JSON.stringify({
      model: this.options.model,
      input,
      encoding_format: 'float',
      ...(this.options.dimensions !== undefined && { dimensions: this.options.dimensions }),
    });
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(this.options.apiKey && { authorization: `Bearer ${this.options.apiKey}` }),
      ...this.options.headers,
    };
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) throw new CancelledError('embedding request cancelled');
      let wait: number | undefined;
      let failure: ChatClientError;
      try {
        const response = await this.http().request(this.url, { method: 'POST', headers, body, signal });
        const text = response.body.toString('utf8');
        if (response.status < 300) return this.vectors(text, input.length);
        failure = new ChatClientError(
          `embeddings request failed: HTTP ${response.status}: ${text.slice(0, 300)}`,
          {
            provider: 'embeddings',
            url: this.url,
            status: response.status,
            retryable: retryableStatus(response.status, response.headers),
            responseBody: text.slice(0, 2000),
          },
        );
        wait = retryAfterMs(response.headers, this.retry.maxRetryAfterMs);
      } catch (error) {
        if (signal.aborted) throw new CancelledError('embedding request cancelled', { cause: error });
        if (ChatClientError.isInstance(error)) throw error; // a malformed answer is not retried
        // A refused address or an oversized answer stays refused; resets and timeouts are retried.
        const code = WebRequestError.isInstance(error)
          ? error.reason === 'network'
            ? (error.cause as { code?: string } | undefined)?.code
            : undefined
          : (error as { code?: string }).code;
        failure = new ChatClientError(
          `embeddings request to ${this.url} failed: ${(error as Error).message}`,
          {
            provider: 'embeddings',
            url: this.url,
            retryable: TimeoutError.isInstance(error) || (code !== undefined && NETWORK_ERRORS.has(code)),
            cause: error,
          },
        );
      }
      if (!failure.retryable || attempt >= this.retry.maxRetries) throw failure;
      await sleep(wait ?? backoffMs(attempt, this.retry), signal);
    }
  }

  private vectors(text: string, count: number): Float32Array[] {
    let parsed: EmbeddingsResponse;
    try {
      parsed = JSON.parse(text) as EmbeddingsResponse;
    } catch {
      throw new ChatClientError('embeddings response is not JSON', { provider: 'embeddings', url: this.url });
    }
    const data = Array.isArray(parsed.data) ? parsed.data : [];
    const vectors: (Float32Array | undefined)[] = Array.from({ length: count }, () => undefined);
    data.forEach((item, position) => {
      const index = typeof item.index === 'number' ? item.index : position;
      if (Array.isArray(item.embedding) && index >= 0 && index < count)
        vectors[index] = normalize(item.embedding as number[]);
    });
    const missing = vectors.indexOf(undefined);
    if (data.length < count || missing !== -1) {
      throw new ChatClientError(`embeddings response has ${data.length} vectors for ${count} inputs`, {
        provider: 'embeddings',
        url: this.url,
      });
    }
    return vectors as Float32Array[];
  }
}
