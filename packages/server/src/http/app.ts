import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, getErrorMessage } from '@raf/core';
import { bareHost, bearerToken, isLoopbackHost } from '@raf/framework';
import type { TenantTokens } from '../auth/tenant-tokens.js';
import type { RunRegistry } from '../runs/run-registry.js';
import { DEFAULT_MAX_BODY_BYTES } from './body.js';
import { ClientGoneError, HttpError, isClientAbort, notFound } from './http-error.js';

/** What a mounted handler gets for one request. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The tenant of the request's bearer token (`undefined` only on a `public` mount). */
  tenant: string | undefined;
  /** Aborted when the client goes away or the server stops. */
  signal: AbortSignal;
  registry: RunRegistry;
  /** The body size limit of this server (pass it to `readBody`). */
  maxBodyBytes: number;
  /** The address the server is bound to (`http://127.0.0.1:41234`). */
  serverUrl: string;
}

export type RouteHandler = (context: RequestContext) => Promise<void> | void;

export interface MountOptions {
  /** Answers without a token (health checks, an A2A agent card). Default false. */
  public?: boolean;
}

export interface ServerAppOptions {
  registry: RunRegistry;
  tokens: TenantTokens;
  /** Default 127.0.0.1. Another host only with tokens from a file (`allowNetwork`). */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Set when the tokens came from a file: then a non-loopback host is allowed. */
  allowNetwork?: boolean;
  maxBodyBytes?: number;
  /** Browser origins (`https://app.example.com`) allowed to call the API (CORS); default none. */
  allowedOrigins?: readonly string[];
  /** Where refusals are logged (default nowhere). */
  log?: (line: string) => void;
  /**
   * How long a request's headers and body may take to arrive (default 60 s; checked every
   * second): a client that trickles its body cannot hold a connection. Streams have no limit.
   */
  requestTimeoutMs?: number;
}

/** A refused origin is logged once, then at most once a minute with the count since. */
const ORIGIN_LOG_MS = 60_000;

interface Mount {
  prefix: string;
  handler: RouteHandler;
  public: boolean;
}

/**
 * The HTTP server of `raf serve`, on Node's own `http` (no framework: streaming SSE with
 * backpressure and a handful of routes need nothing more, and the CLI keeps no extra
 * dependency). Handlers are mounted by path prefix (the longest wins); before any of them runs,
 * the `Host` header (loopback binds: DNS rebinding), the `Origin` (another site's page) and the
 * bearer token (→ the tenant) are checked.
 */
export class ServerApp {
  private readonly mounts: Mount[] = [];
  private readonly server: Server;
  private readonly controllers = new Set<AbortController>();
  private readonly host: string;
  private readonly maxBodyBytes: number;
  private readonly origins: ReadonlySet<string>;
  /** Refused origins: when each was last logged and how many refusals since. */
  private readonly refusedOrigins = new Map<string, { at: number; since: number }>();
  private address: AddressInfo | undefined;

  constructor(private readonly options: ServerAppOptions) {
    this.host = bareHost(options.host ?? '127.0.0.1');
    if (!isLoopbackHost(this.host) && !options.allowNetwork)
      throw new ConfigError(
        `raf serve on ${this.host} would let other machines run the agents: give the tokens of each tenant with --tokens FILE, or keep the host at 127.0.0.1`,
      );
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.origins = new Set(options.allowedOrigins ?? []);
    // The request itself (headers and body) must arrive within a minute (a client that trickles
    // its body cannot hold a connection); the answer, a long run's stream, has no time limit.
    // Node checks the timeouts every `connectionsCheckingInterval` (30 s by default, so a 60 s
    // limit became up to 90 s): every second here, so the limit is the documented one.
    const timeout = options.requestTimeoutMs ?? 60_000;
    this.server = createServer(
      {
        requestTimeout: timeout,
        headersTimeout: Math.min(30_000, timeout),
        connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(timeout / 10))),
      },
      (req, res) => void this.handle(req, res),
    );
  }

  get registry(): RunRegistry {
    return this.options.registry;
  }

  /** Serves `handler` for every path under `prefix` (`/v1/agents/x/chat` is under `/v1/agents`). */
  mount(prefix: string, handler: RouteHandler, options: MountOptions = {}): this {
    const clean = prefix.replace(/\/+$/, '') || '/';
    this.mounts.push({ prefix: clean, handler, public: options.public ?? false });
    this.mounts.sort((a, b) => b.prefix.length - a.prefix.length);
    return this;
  }

  async listen(): Promise<{ url: string; port: number; host: string }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.address = this.server.address() as AddressInfo;
    return { url: this.url(), port: this.address.port, host: this.host };
  }

  private url(): string {
    const shown = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${shown}:${this.address?.port ?? this.options.port ?? 0}`;
  }

  /** Stops listening, ends every request (streams included) and stops the runs of this replica. */
  async close(): Promise<void> {
    for (const controller of this.controllers) controller.abort(new Error('the server is stopping'));
    await this.options.registry.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** One request (exposed so the app can run under another server or a test). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    this.controllers.add(controller);
    res.once('close', () => {
      controller.abort(new Error('the client went away'));
      this.controllers.delete(controller);
    });
    try {
      const url = requestUrl(req.url);
      this.checkSingleHost(req);
      this.checkHost(req);
      const cors = this.cors(req, res);
      if (req.method === 'OPTIONS' && cors) {
        res.writeHead(204).end();
        return;
      }
      const mount = this.mounts.find(
        (m) => url.pathname === m.prefix || url.pathname.startsWith(`${m.prefix}/`) || m.prefix === '/',
      );
      if (!mount) throw new HttpError(404, 'not_found', `${url.pathname} not found`);
      let tenant: string | undefined;
      if (!mount.public) {
        tenant = this.options.tokens.tenantOf(bearerToken(req.headers.authorization));
        if (tenant === undefined) {
          res.setHeader('www-authenticate', 'Bearer');
          throw new HttpError(
            401,
            'unauthorized',
            'a valid bearer token is required (Authorization: Bearer <token>)',
          );
        }
      }
      checkDecodable(url);
      await mount.handler({
        req,
        res,
        url,
        tenant,
        signal: controller.signal,
        registry: this.options.registry,
        maxBodyBytes: this.maxBodyBytes,
        serverUrl: this.url(),
      });
    } catch (error) {
      this.fail(res, error, controller.signal.aborted);
    }
  }

  /**
   * One `Host` header, no more: Node keeps the first of several, and a proxy may read another, so
   * a request with two could pass the check here and mean another host there.
   */
  private checkSingleHost(req: IncomingMessage): void {
    let hosts = 0;
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      if (req.rawHeaders[i]!.toLowerCase() === 'host') hosts++;
    if (hosts > 1) throw new HttpError(400, 'duplicate_host', 'the request has more than one Host header');
  }

  /** The refusal of `origin`, logged once and then at most once a minute (a page can send many). */
  private logRefusedOrigin(origin: string): void {
    const now = Date.now();
    const seen = this.refusedOrigins.get(origin);
    if (seen && now - seen.at < ORIGIN_LOG_MS) {
      seen.since++;
      return;
    }
    // Bounded: many origins (forged headers) cannot grow the map without end.
    if (!seen && this.refusedOrigins.size >= 1000) this.refusedOrigins.clear();
    const more = seen && seen.since > 0 ? ` (and ${seen.since} more since the last line)` : '';
    this.refusedOrigins.set(origin, { at: now, since: 0 });
    this.options.log?.(`refused a request from origin ${origin}${more}`);
  }

  /** Bound to loopback, only loopback names reach it (a DNS-rebinding page cannot). */
  private checkHost(req: IncomingMessage): void {
    if (!isLoopbackHost(this.host)) return;
    // An absolute-form target (`GET http://evil.example/…`) names the host itself (RFC 9112
    // §3.2.2: it wins over the header): checked like the header.
    this.checkHostName(req.headers.host ?? '');
    if (/^https?:\/\//i.test(req.url ?? '')) this.checkHostName(requestUrlHost(req.url!));
  }

  private checkHostName(host: string): void {
    const name = host.replace(/:\d+$/, '');
    const port = host.match(/:(\d+)$/)?.[1];
    if (!isLoopbackHost(name) || (port !== undefined && Number(port) !== this.address?.port))
      throw new HttpError(
        403,
        'wrong_host',
        // `[::1]:port`, as the Host header spells it (`::1:port` reads as another address).
        `this server answers on ${this.url().slice('http://'.length)} only`,
      );
  }

  /** A browser's cross-origin request is refused unless its origin is allowed; then CORS headers. */
  private cors(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return false;
    const host = req.headers.host ?? '';
    if (origin === `http://${host}` || origin === `https://${host}`) return false;
    if (!this.origins.has(origin)) {
      this.logRefusedOrigin(origin);
      throw new HttpError(403, 'wrong_origin', 'requests from another origin are refused');
    }
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'Origin');
    res.setHeader('access-control-allow-headers', 'authorization, content-type, last-event-id');
    res.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
    res.setHeader('access-control-expose-headers', 'content-type');
    return true;
  }

  private fail(res: ServerResponse, error: unknown, closed = false): void {
    // The client went away (mid-body, or a reset): not an internal error, and no answer to
    // write on a closed socket. Dropped without a log line. A reset error while the client is
    // still there is another connection's (a database's): logged as internal like any other.
    if (error instanceof ClientGoneError || (closed && isClientAbort(error))) {
      res.destroy();
      return;
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    const known = HttpError.isHttpError(error);
    const status = known ? error.status : 500;
    // An unexpected failure (a store's SQL error) is logged here, not told to the client.
    if (!known) this.options.log?.(`internal error: ${getErrorMessage(error)}`);
    const body = JSON.stringify({
      error: {
        code: known ? error.reason : 'internal_error',
        message: known ? error.message : 'internal error (the server log has the details)',
      },
    });
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }
}

/** The request's path and query, parsed as a path (`//v1/agents` is that path, not the host `v1`). */
function requestUrl(target = '/'): URL {
  let url: URL;
  try {
    // An absolute-form target (`GET http://host/v1/agents`, from a proxy): its path and query.
    const absolute = /^https?:\/\//i.test(target) ? new URL(target) : undefined;
    const path = absolute ? `${absolute.pathname}${absolute.search}` : target.startsWith('/') ? target : '/';
    url = new URL(`http://localhost${path}`);
  } catch {
    throw new HttpError(400, 'invalid_path', 'the request path is not a valid URL path');
  }
  return url;
}

/** The host (and port) an absolute-form target names; '' when it does not parse (refused). */
function requestUrlHost(target: string): string {
  try {
    return new URL(target).host;
  } catch {
    return '';
  }
}

/** A path whose percent-escapes do not decode names nothing: 404 (not the routes' URIError, a 500). */
function checkDecodable(url: URL): void {
  try {
    decodeURIComponent(url.pathname);
  } catch {
    throw notFound(url.pathname);
  }
}

/** Sends `value` as JSON. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
