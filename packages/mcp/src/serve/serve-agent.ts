import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ConfigError } from '@raf/core';
import { bareHost, bearerToken, isLoopbackHost, newLocalToken, sameToken } from '@raf/framework';
import {
  type AgentMcpServerOptions,
  AgentSessions,
  registerAgentTool,
  type ServableAgent,
} from './agent-server.js';
import { type ApprovalState, newModernServer } from './modern-agent-tool.js';

export interface ServeAgentOptions extends AgentMcpServerOptions {
  /** Stops serving. */
  signal?: AbortSignal;
}

async function newServer(
  agent: ServableAgent,
  sessions: AgentSessions,
  options: AgentMcpServerOptions,
): Promise<McpServer> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const server = new McpServer({ name: agent.name, version: '0.1.0' }, { capabilities: { tools: {} } });
  registerAgentTool(server, agent, sessions, options);
  return server;
}

/** The SDK v2 and the key that seals a paused call's state, for one serving process. */
async function modernServing() {
  const sdk = await import('@modelcontextprotocol/server');
  // Per process: every round of one call reaches this process (one stdio pipe, one HTTP server).
  const codec = sdk.createRequestStateCodec<ApprovalState>({ key: randomBytes(32), ttlSeconds: 600 });
  return { sdk, codec };
}

/**
 * Serves the agent as an MCP server on stdin/stdout (the process's, unless given) until the client
 * goes away (stdin ends) or `signal` fires. Nothing else may write to `stdout` meanwhile. Both
 * revisions are spoken (the SDK v2's `serveStdio` picks by the client's opening): 2026-07-28, and
 * 2025-11-25 for a client that opens with `initialize`.
 */
export async function serveAgentOverStdio(
  agent: ServableAgent,
  options: ServeAgentOptions & { stdin?: Readable; stdout?: Writable } = {},
): Promise<void> {
  const { serveStdio, StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const { sdk, codec } = await modernServing();
  const stdin = options.stdin ?? process.stdin;
  const sessions = new AgentSessions();
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let stopped: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const handle = serveStdio(() => newModernServer(sdk, agent, sessions, codec, options), {
    legacy: 'serve',
    transport,
    onerror: (error) => options.log?.(`stdio: ${error.message}`),
  });
  const stop = () => void handle.close().finally(stopped);
  stdin.once('end', stop);
  stdin.once('close', stop);
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) stop();
  await closed;
  stdin.off('end', stop);
  stdin.off('close', stop);
  options.signal?.removeEventListener('abort', stop);
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A node request, its body already read, as the web `Request` the SDK v2's handler takes. */
function webRequest(req: IncomingMessage, body: Buffer, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const method = req.method ?? 'GET';
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method,
    headers,
    signal,
    ...(body.length > 0 && method !== 'GET' && method !== 'HEAD' && { body: new Uint8Array(body) }),
  });
}

async function sendWeb(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

export interface HttpAgentServeOptions extends ServeAgentOptions {
  port?: number;
  /** Default 127.0.0.1. Another machine's reach (`0.0.0.0`, a LAN address) needs `exposeToNetwork`. */
  host?: string;
  /** The bearer token every request must carry (default: a new random one, in `HttpAgentServer.token`). */
  token?: string;
  /** Allows a `host` other clients than this machine's can reach: the agent (and its tools) then are. */
  exposeToNetwork?: boolean;
}

export interface HttpAgentServer {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  /** What a client sends as `Authorization: Bearer <token>` on every request. */
  token: string;
  close(): Promise<void>;
  /** Settles when the server stopped (`close()` or the signal). */
  closed: Promise<void>;
}

/**
 * Serves the agent over streamable HTTP at `/mcp` (one MCP session per client; the agent's
 * conversations are shared by id). Any process of the machine can reach a local port, and the
 * agent runs tools and answers approvals through this endpoint, so: every request carries the
 * bearer token (`Authorization: Bearer`, 401 otherwise); a browser's `Origin` must be the
 * server's own and the `Host` header one of its names (403: another site's page, DNS rebinding);
 * it binds 127.0.0.1, and another host only with `exposeToNetwork`.
 */
export async function serveAgentOverHttp(
  agent: ServableAgent,
  options: HttpAgentServeOptions = {},
): Promise<HttpAgentServer> {
  const host = bareHost(options.host ?? '127.0.0.1');
  if (!isLoopbackHost(host) && !options.exposeToNetwork)
    throw new ConfigError(
      `serving the agent on ${host} lets other machines run it and its tools; say so with exposeToNetwork (raf mcp serve --expose-agent-to-network), or keep the host at 127.0.0.1`,
    );
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const token = options.token ?? newLocalToken();
  const sessions = new AgentSessions();
  // 2026-07-28 requests (the per-request envelope) go to the SDK v2's handler; 2025 ones to the
  // sessionful 1.x wiring. One agent, one set of conversations, behind one token.
  const { sdk, codec } = await modernServing();
  const modern = sdk.createMcpHandler(() => newModernServer(sdk, agent, sessions, codec, options), {
    legacy: 'reject',
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => options.log?.(`request failed: ${error.message}`),
  });
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];
  const reject = (res: ServerResponse, status: number, message: string, headers = {}) =>
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  /** Host, Origin, then the token: the refusal before any byte of the body is read. */
  const refusal = (req: IncomingMessage): [number, string] | undefined => {
    const hostHeader = req.headers.host ?? '';
    // Exposed, the server is reached by names it cannot know; the token then stands alone.
    if (!options.exposeToNetwork && !allowedHosts.includes(hostHeader))
      return [403, `this server answers on ${allowedHosts[0]} only`];
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${hostHeader}`)
      return [403, 'requests from another origin (a web page) are refused'];
    if (!sameToken(bearerToken(req.headers.authorization), token))
      return [401, 'a bearer token is required (Authorization: Bearer <the token raf mcp serve printed>)'];
    return undefined;
  };

  const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const refused = refusal(req);
      if (refused) {
        options.log?.(`refused a request: ${refused[1]}`);
        return reject(
          res,
          refused[0],
          refused[1],
          refused[0] === 401 ? { 'www-authenticate': 'Bearer' } : {},
        );
      }
      if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp')
        return reject(res, 404, 'not found: the MCP endpoint is /mcp');
      if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'DELETE')
        return reject(res, 405, `${req.method} /mcp is not allowed (GET, POST, DELETE)`, {
          allow: 'GET, POST, DELETE',
        });
      const body = await readBody(req);
      if (!body) return reject(res, 413, `the request body is over ${MAX_BODY_BYTES} bytes`);
      const abort = new AbortController();
      res.once('close', () => abort.abort());
      let parsed: unknown;
      if (body.length > 0) {
        try {
          parsed = JSON.parse(body.toString('utf8'));
        } catch {
          return reject(res, 400, 'Parse error: the body is not JSON');
        }
      }
      if (req.method === 'POST' && parsed === undefined)
        return reject(res, 400, 'Parse error: a POST needs a JSON body');
      const request = webRequest(req, body, abort.signal);
      if (!(await sdk.isLegacyRequest(request, parsed, { maxRequestBodySize: MAX_BODY_BYTES })))
        return await sendWeb(res, await modern.fetch(request, { parsedBody: parsed }));
      const id = req.headers['mcp-session-id'];
      const existing = typeof id === 'string' ? transports.get(id) : undefined;
      if (existing) return await existing.handleRequest(req, res, parsed);
      if (id !== undefined) return reject(res, 404, 'Session not found');
      if (req.method !== 'POST')
        return reject(res, 400, 'Bad Request: no session; start one with an initialize POST');
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableDnsRebindingProtection: !options.exposeToNetwork,
        allowedHosts,
        onsessioninitialized: (sessionId) => {
          transports.set(sessionId, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      const server = await newServer(agent, sessions, options);
      await server.connect(transport);
      await transport.handleRequest(req, res, parsed);
    } catch (error) {
      options.log?.(`request failed: ${(error as Error).message}`);
      if (!res.headersSent) reject(res, 500, 'internal error');
    }
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  allowedHosts = [`${shown}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`];
  const closed = new Promise<void>((resolve) => http.once('close', () => resolve()));
  const close = async () => {
    await modern.close().catch(() => undefined);
    await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  options.signal?.addEventListener('abort', () => void close(), { once: true });
  return { url: `http://${shown}:${port}/mcp`, token, close, closed };
}
