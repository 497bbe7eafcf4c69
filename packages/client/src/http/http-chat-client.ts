import {
  type AgentResponseUpdate,
  CancelledError,
  ChatClientError,
  type ChatClientRunOptions,
  type ChatMessage,
  ConfigError,
  type ContentCapabilities,
  getErrorMessage,
  type IChatClient,
  type ModelMetadata,
  type RafError,
  TimeoutError,
  type TimeoutPhase,
  unsupportedContentProblem,
  withinCapabilities,
} from '@raf/core';
import { flattenBatches, subscribeAbort, unsubscribeAbort } from '@raf/core/internal';
import type { Dispatcher, Agent as UndiciAgent } from 'undici';
import { defaultCapabilities, hasAuthHeader } from '../provider-defaults.js';
import { abortableSleep } from '../retry/abortable-sleep.js';
import {
  backoffDelay,
  parseRetryAfter,
  type ResolvedRetryOptions,
  resolveRetryOptions,
  shouldRetryResponse,
} from '../retry/retry-policy.js';
import { type OpenedResponse, readStream } from '../stream/read-stream.js';
import type { StreamMapper } from '../stream/stream-mapper.js';
import { AbortHandle } from './abort-handle.js';
import { CallTimer } from './call-timer.js';
import { dispatchRequest } from './dispatch-response.js';
import { DEFAULT_TIMEOUTS, type HttpClientOptions, type TimeoutOptions } from './http-client-options.js';
import { displayUrl, redactSecret } from './redact.js';
import { extractErrorMessage, readErrorBody } from './response-error.js';
import { loadAgentClass, loadedAgentClass } from './undici-agent.js';

/**
 * Loads the HTTP stack now rather than on the first request, and makes one request to a throwaway
 * server on 127.0.0.1 (the first connection compiles the HTTP parser): for a process that knows a
 * request is coming and has time before it (a spare sub-agent worker).
 */
export async function preloadHttp(): Promise<void> {
  const Agent = await loadAgentClass();
  const { createServer } = await import('node:http');
  const server = createServer((_request, response) => response.end());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const dispatcher = new Agent();
  try {
    const { port } = server.address() as { port: number };
    const response = await dispatcher.request({
      origin: `http://127.0.0.1:${port}`,
      path: '/',
      method: 'GET',
    });
    await response.body.dump();
  } finally {
    await dispatcher.close();
    server.close();
  }
}

const PHASE_TEXT: Record<TimeoutPhase, string> = {
  connect: 'could not connect',
  firstChunk: 'no answer',
  idle: 'no data',
  total: 'did not complete',
  tool: 'tool did not finish',
};

/** What a protocol tells the shared transport: where to post, with which headers. */
export interface HttpEndpoint {
  provider: string;
  /** The full URL every request is posted to. */
  url: string;
  /** Sent with every request (auth, content type, protocol version). */
  headers: Record<string, string>;
  /** Set when requests would reach a provider's hosted API with no key: each run fails with it. */
  missingKey?: string;
}

/**
 * The transport every HTTP chat client shares: one POST per call over undici `dispatch`,
 * retries (connection errors, 408, 409, 429, 5xx, Retry-After) before the first chunk, the four
 * timeouts, abort handling and error mapping to `ChatClientError`/`TimeoutError`/
 * `CancelledError` with the API key redacted. A protocol adds the request body and a
 * `StreamMapper` for its answer.
 */
export abstract class HttpChatClient implements IChatClient {
  readonly modelId: string;
  readonly provider: string;
  readonly modelMetadata?: ModelMetadata;
  readonly capabilities: ContentCapabilities;
  private readonly origin: string;
  private readonly path: string;
  private readonly shownUrl: string;
  /** `provider: POST url`, the prefix of every error message. */
  private readonly label: string;
  private readonly timeouts: Required<TimeoutOptions>;
  private readonly retry: ResolvedRetryOptions;
  private readonly headers: Record<string, string>;
  private readonly apiKey: string | undefined;
  private readonly missingKey: string | undefined;
  private dispatcher: Dispatcher | undefined;
  private readonly ownsDispatcher: boolean;

  protected constructor(options: HttpClientOptions, endpoint: HttpEndpoint) {
    this.modelId = options.model;
    this.provider = endpoint.provider;
    if (options.modelMetadata) this.modelMetadata = options.modelMetadata;
    this.capabilities = options.capabilities ?? defaultCapabilities(this.provider, this.modelId);
    const url = new URL(endpoint.url);
    this.origin = url.origin;
    this.path = `${url.pathname}${url.search}`;
    this.shownUrl = displayUrl(endpoint.url);
    this.label = `${this.provider}: POST ${this.shownUrl}`;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.retry = resolveRetryOptions(options.retry, options.maxRetries);
    this.headers = endpoint.headers;
    this.apiKey = options.apiKey;
    this.missingKey = endpoint.missingKey;
    this.dispatcher = options.dispatcher;
    this.ownsDispatcher = options.dispatcher === undefined;
  }

  /** The JSON text of one request (one `JSON.stringify`: V8's serializer beats caching parts). */
  protected abstract requestBody(messages: readonly ChatMessage[], options: ChatClientRunOptions): string;

  /** A fresh mapper for one answer. */
  protected abstract createMapper(options: ChatClientRunOptions): StreamMapper;

  run(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncIterable<AgentResponseUpdate> {
    return flattenBatches(this.stream(messages, options));
  }

  /** The updates of each network read as one batch (what the tool loop reads). */
  runBatches(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncIterable<AgentResponseUpdate[]> {
    return this.stream(messages, options);
  }

  /** Closes the connection pool this client created (not a dispatcher passed in). */
  async close(): Promise<void> {
    if (this.ownsDispatcher && this.dispatcher) await this.dispatcher.close();
    this.dispatcher = undefined;
  }

  private redact(text: string): string {
    return redactSecret(text, this.apiKey);
  }

  private getDispatcher(Agent: typeof UndiciAgent): Dispatcher {
    this.dispatcher ??= new Agent({
      connect: { timeout: this.timeouts.connectMs },
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    return this.dispatcher;
  }

  // One generator layer only: every extra async-generator hop costs CPU per streamed batch.
  private stream(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions,
  ): AsyncGenerator<AgentResponseUpdate[], void, undefined> {
    const userSignal = options.signal;
    const total = new AbortHandle();
    const timer = new CallTimer((phase, ms) => this.timeoutText(phase, ms));
    const onAbort = () => total.abort(userSignal?.reason);
    return readStream(
      async () => {
        if (userSignal?.aborted) throw this.cancelled(userSignal.reason);
        const unsupported = unsupportedContentProblem(messages, this.capabilities, this.modelId);
        if (unsupported) throw new ConfigError(`${this.provider}: ${unsupported}`);
        const body = this.requestBody(withinCapabilities(messages, this.capabilities), options);
        const headers = options.extraHeaders ? { ...this.headers, ...options.extraHeaders } : this.headers;
        // A run may bring its own credentials (a tenant's key in extraHeaders).
        if (this.missingKey && !hasAuthHeader(options.extraHeaders)) throw new ConfigError(this.missingKey);
        // One listener on the caller's signal however many requests share it.
        if (userSignal) subscribeAbort(userSignal, onAbort);
        return this.open(body, headers, total, timer, userSignal);
      },
      {
        label: this.label,
        mapper: this.createMapper(options),
        timer,
        idleMs: this.timeouts.idleMs,
        redact: (text) => this.redact(text),
        cancelled: (reason) => (userSignal?.aborted ? this.cancelled(reason) : undefined),
        cleanup: () => {
          timer.stop();
          if (userSignal) unsubscribeAbort(userSignal, onAbort);
        },
      },
    );
  }
  private async open(
    body: string,
    headers: Record<string, string>,
    total: AbortHandle,
    timer: CallTimer,
    userSignal: AbortSignal | undefined,
  ): Promise<OpenedResponse> {
    for (let retry = 0; ; retry++) {
      const attempt = new AbortHandle();
      const link = () => attempt.abort(total.reason);
      const detach = () => total.removeListener('abort', link);
      if (total.aborted) link();
      else total.once('abort', link);
      let opened: OpenedResponse | undefined;
      // The phase first: the total deadline is later, so the one timer is armed once.
      timer.startPhase(attempt, 'firstChunk', this.timeouts.firstChunkMs);
      if (retry === 0) timer.startTotal(total, this.timeouts.totalMs);
      let failure: { error: RafError; retryable: boolean; waitMs?: number };
      try {
        // Once loaded, no await: every step between two requests shows in the loop's latency.
        const Agent = loadedAgentClass() ?? (await loadAgentClass());
        const response = await dispatchRequest(
          this.getDispatcher(Agent),
          { origin: this.origin, path: this.path, headers, body },
          attempt,
        );
        if (response.statusCode >= 200 && response.statusCode < 300) {
          const iterator = response.body;
          const first = await iterator.next();
          const contentType = String(response.headers['content-type'] ?? '');
          opened = { contentType, iterator, first, attempt, detach };
          return opened;
        }
        const text = await readErrorBody(response.body).catch(() => '');
        const message = extractErrorMessage(text);
        const retryable = shouldRetryResponse(response.statusCode, response.headers);
        const error = new ChatClientError(
          this.redact(
            `${this.label} failed with HTTP ${response.statusCode}${message ? `: ${message}` : ''}`,
          ),
          {
            provider: this.provider,
            url: this.shownUrl,
            status: response.statusCode,
            retryable,
            responseBody: this.redact(text),
          },
        );
        const waitMs = parseRetryAfter(response.headers, this.retry.maxRetryAfterMs);
        failure = waitMs === undefined ? { error, retryable } : { error, retryable, waitMs };
      } catch (error) {
        failure = this.classify(error, attempt, userSignal);
      } finally {
        timer.endPhase();
        if (!opened) detach();
      }
      if (!failure.retryable || retry >= this.retry.maxRetries) {
        attempt.abort();
        throw retry > 0 ? this.withAttempts(failure.error, retry + 1) : failure.error;
      }
      attempt.abort();
      try {
        await abortableSleep(failure.waitMs ?? backoffDelay(retry, this.retry), total);
      } catch (error) {
        throw this.classify(error, total, userSignal).error;
      }
    }
  }

  private classify(
    error: unknown,
    attempt: AbortHandle,
    userSignal: AbortSignal | undefined,
  ): { error: RafError; retryable: boolean } {
    if (userSignal?.aborted) return { error: this.cancelled(userSignal.reason), retryable: false };
    const reason: unknown = attempt.aborted ? attempt.reason : undefined;
    if (TimeoutError.isInstance(reason)) return { error: reason, retryable: reason.phase !== 'total' };
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') {
      const ms = this.timeouts.connectMs;
      return {
        error: new TimeoutError(this.timeoutText('connect', ms), {
          phase: 'connect',
          timeoutMs: ms,
          cause: error,
        }),
        retryable: true,
      };
    }
    const detail = this.redact(getErrorMessage(error));
    return {
      error: new ChatClientError(
        `${this.label} failed: ${detail}${typeof code === 'string' ? ` (${code})` : ''}`,
        {
          provider: this.provider,
          url: this.shownUrl,
          retryable: true,
          cause: error,
        },
      ),
      retryable: true,
    };
  }

  private withAttempts(error: RafError, attempts: number): RafError {
    error.message = `${error.message} (after ${attempts} attempts)`;
    return error;
  }

  private cancelled(reason: unknown): CancelledError {
    return new CancelledError(`${this.label} cancelled`, { cause: reason });
  }

  private timeoutText(phase: TimeoutPhase, ms: number): string {
    return `${this.label} timed out: ${PHASE_TEXT[phase]} within ${ms} ms (${phase} timeout)`;
  }
}
