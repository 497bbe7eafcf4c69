import { CancelledError, getErrorMessage, TimeoutError } from '@raf/core';
import type { Agent, Dispatcher } from 'undici';
import { parseAllowList } from './address-policy.js';
import {
  type AddressGuard,
  guardedConnector,
  type HostResolver,
  systemResolver,
} from './guarded-connector.js';
import { HTTP_DEFAULTS } from './http-options.js';
import { WebRequestError } from './web-request-error.js';

export interface GuardedHttpOptions {
  /** CIDR ranges, addresses or host names the guard admits although they are not public. */
  allowPrivate?: readonly string[];
  /** Largest body read, in bytes (default 5 MB); a larger one is an error. */
  maxBytes?: number;
  /** Time for a whole request, all redirect hops and the body included (default 30 s). */
  timeoutMs?: number;
  /** Redirects followed (default 5); each hop is checked like the first. */
  maxRedirects?: number;
  /** Time to open one connection (default 10 s). */
  connectTimeoutMs?: number;
  userAgent?: string;
  /** How host names are resolved (default: the system resolver). Tests swap it. */
  resolver?: HostResolver;
}

export interface GuardedRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Overrides the client's `maxBytes` for this request. */
  maxBytes?: number;
  /**
   * Called with the final response's media type (lower case, no parameters) before its body is
   * read; a returned message refuses the response (`unsupported-content`).
   */
  refuseContentType?: (mediaType: string | undefined, url: string) => string | undefined;
}

export interface GuardedResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: Readonly<Record<string, string>>;
  /** Lower case, without parameters (`text/html`). */
  mediaType: string | undefined;
  /** The `charset` parameter of `Content-Type`, if any. */
  charset: string | undefined;
  body: Buffer;
  /** Each URL redirected from, in order. */
  redirects: string[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that may follow a redirect to another origin; credentials never do. */
const CROSS_ORIGIN_SAFE = new Set(['accept', 'accept-language', 'user-agent', 'content-type']);

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const text = headerValue(value);
    if (text !== undefined) flat[name.toLowerCase()] = text;
  }
  return flat;
}

/** Splits `text/html; charset=Shift_JIS` into its media type and charset. */
export function parseContentType(value: string | undefined): { mediaType?: string; charset?: string } {
  if (!value) return {};
  const [type, ...params] = value.split(';');
  const mediaType = type?.trim().toLowerCase() || undefined;
  let charset: string | undefined;
  for (const param of params) {
    const [name, raw] = param.split('=');
    if (name?.trim().toLowerCase() === 'charset' && raw) charset = raw.trim().replace(/^"|"$/g, '');
  }
  return { ...(mediaType && { mediaType }), ...(charset && { charset }) };
}

function parseHttpUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new WebRequestError('unsupported-url', `"${String(input)}" is not a valid URL`, {
      url: String(input),
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebRequestError(
      'unsupported-url',
      `${url.protocol} URLs are not fetched (http and https only)`,
      {
        url: url.href,
      },
    );
  }
  return url;
}

/**
 * HTTP over undici with the SSRF guard on every connection (see `guardedConnector`), a size cap,
 * a total time cap and a redirect cap. Both `@raf/web` and `@raf/openapi` reach the network only
 * through this client. Close it when done (`await client.close()`).
 */
export class GuardedHttpClient {
  private agent: Promise<Agent> | undefined;
  private readonly guard: AddressGuard;
  private readonly connectTimeoutMs: number;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly userAgent: string;

  constructor(options: GuardedHttpOptions = {}) {
    // Parsed now: a malformed allowPrivate entry fails when the agent is built, not on first use.
    this.guard = {
      allow: parseAllowList(options.allowPrivate ?? []),
      resolver: options.resolver ?? systemResolver,
    };
    this.connectTimeoutMs = options.connectTimeoutMs ?? HTTP_DEFAULTS.connectTimeoutMs;
    this.maxBytes = options.maxBytes ?? HTTP_DEFAULTS.maxBytes;
    this.timeoutMs = options.timeoutMs ?? HTTP_DEFAULTS.timeoutMs;
    this.maxRedirects = options.maxRedirects ?? HTTP_DEFAULTS.maxRedirects;
    this.userAgent = options.userAgent ?? HTTP_DEFAULTS.userAgent;
  }

  /** undici is loaded with the first request: building an agent that has these tools stays cheap. */
  private dispatcher(): Promise<Agent> {
    this.agent ??= import('undici').then(
      ({ Agent, buildConnector }) =>
        new Agent({ connect: guardedConnector(this.guard, this.connectTimeoutMs, buildConnector) }),
    );
    return this.agent;
  }

  /** One request, following redirects; any status is returned (the caller decides what fails). */
  async request(input: string | URL, init: GuardedRequestInit = {}): Promise<GuardedResponse> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    try {
      return await this.follow(parseHttpUrl(input), init, signal);
    } catch (error) {
      if (init.signal?.aborted) throw new CancelledError('request cancelled', { cause: init.signal.reason });
      if (deadline.aborted) {
        throw new TimeoutError(`${String(input)}: no complete answer within ${this.timeoutMs} ms`, {
          phase: 'total',
          timeoutMs: this.timeoutMs,
          cause: error,
        });
      }
      throw error;
    }
  }

  /**
   * A WHATWG `fetch` behind the same guard, for SDKs that take a `fetchImpl` and read a streamed
   * body (A2A's `message/stream`): every connection is checked at connect time, redirects are
   * refused (`redirect: 'error'`: a hop would leave the origin the author named, with its
   * credentials), and a body past `maxBytes` fails the stream. No total deadline: a stream lives
   * as long as its caller's signal lets it; connecting is bounded by `connectTimeoutMs`.
   */
  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const href = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
    const url = parseHttpUrl(href);
    const dispatcher = await this.dispatcher();
    const { fetch: undiciFetch } = await import('undici');
    const request = typeof input === 'string' || input instanceof URL ? undefined : input;
    const headers = new Headers(request?.headers);
    for (const [name, value] of new Headers(init.headers)) headers.set(name, value);
    if (!headers.has('user-agent')) headers.set('user-agent', this.userAgent);
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(url, {
        method: init.method ?? request?.method ?? 'GET',
        headers: Object.fromEntries(headers),
        ...(init.body !== undefined && init.body !== null && { body: init.body as string }),
        ...((init.signal ?? request?.signal) && { signal: (init.signal ?? request?.signal) as AbortSignal }),
        redirect: 'error',
        dispatcher,
      });
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (WebRequestError.isInstance(cause)) throw cause;
      throw error;
    }
    return capped(response as unknown as Response, this.maxBytes, url.href);
  };

  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    if (agent) await (await agent).close();
  }

  private async follow(first: URL, init: GuardedRequestInit, signal: AbortSignal): Promise<GuardedResponse> {
    const redirects: string[] = [];
    let url = first;
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    let headers: Record<string, string> = { 'user-agent': this.userAgent, ...lowerKeys(init.headers ?? {}) };
    for (;;) {
      const response = await this.send(url, method, headers, body, signal);
      const location = headerValue(response.headers.location);
      if (!REDIRECTS.has(response.statusCode) || location === undefined) {
        return await this.read(url, response, init, redirects);
      }
      await response.body.dump();
      if (redirects.length >= this.maxRedirects) {
        throw new WebRequestError(
          'too-many-redirects',
          `${first.href}: more than ${this.maxRedirects} redirects (last to ${location})`,
          { url: url.href },
        );
      }
      redirects.push(url.href);
      let next: URL;
      try {
        next = parseHttpUrl(new URL(location, url));
      } catch (error) {
        throw new WebRequestError(
          'unsupported-url',
          `${url.href} redirects to ${location}: ${getErrorMessage(error)}`,
          { url: url.href, cause: error },
        );
      }
      // 303 always, and 301/302 after a POST (as browsers do), turn into a GET without a body.
      if (response.statusCode === 303 || (method === 'POST' && response.statusCode <= 302)) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        delete headers['content-type'];
        delete headers['content-length'];
      }
      if (next.origin !== url.origin) {
        headers = Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_SAFE.has(name)));
      }
      url = next;
    }
  }

  private async send(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | Uint8Array | undefined,
    signal: AbortSignal,
  ) {
    const dispatcher = await this.dispatcher();
    try {
      const { request } = await import('undici');
      return await request(url, {
        dispatcher,
        method: method as 'GET',
        headers,
        ...(body !== undefined && { body }),
        signal,
      });
    } catch (error) {
      if (WebRequestError.isInstance(error) || signal.aborted) throw error;
      const code = (error as { code?: string }).code;
      const detail = getErrorMessage(error);
      throw new WebRequestError(
        'network',
        `${method} ${url.href} failed: ${code ? `${code} ` : ''}${detail}`,
        {
          url: url.href,
          cause: error,
        },
      );
    }
  }

  private async read(
    url: URL,
    response: Dispatcher.ResponseData,
    init: GuardedRequestInit,
    redirects: string[],
  ): Promise<GuardedResponse> {
    const headers = flatHeaders(response.headers);
    const { mediaType, charset } = parseContentType(headers['content-type']);
    const refused = init.refuseContentType?.(mediaType, url.href);
    const limit = init.maxBytes ?? this.maxBytes;
    const tooLarge = () =>
      new WebRequestError('too-large', `${url.href}: the body is larger than ${limit} bytes (maxBytes)`, {
        url: url.href,
      });
    if (refused) {
      discard(response.body);
      throw new WebRequestError('unsupported-content', refused, { url: url.href });
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      discard(response.body);
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) break;
        chunks.push(chunk);
      }
    } catch (error) {
      throw new WebRequestError('network', `${url.href}: the body broke off: ${getErrorMessage(error)}`, {
        url: url.href,
        cause: error,
      });
    }
    if (size > limit) {
      discard(response.body);
      throw tooLarge();
    }
    return {
      url: url.href,
      status: response.statusCode,
      headers,
      mediaType,
      charset,
      body: Buffer.concat(chunks, size),
      redirects,
    };
  }
}

/** The response with a body that errors once more than `limit` bytes have passed. */
function capped(response: Response, limit: number, url: string): Response {
  if (!response.body) return response;
  let size = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > limit) {
        controller.error(
          new WebRequestError('too-large', `${url}: the body is larger than ${limit} bytes (maxBytes)`, {
            url,
          }),
        );
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Drops a body not to be read; its abort must not surface as an unhandled stream error. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
