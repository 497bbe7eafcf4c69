import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ConfigError } from '@raf/core';
import { bearerToken, isLoopbackHost, newLocalToken, sameToken } from '@raf/framework';
import {
  type AgentMcpServerOptions,
  AgentSessions,
  registerAgentTool,
  type ServableAgent,
} from './agent-server.js';

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

/**
 * Serves the agent as an MCP server on stdin/stdout (the process's, unless given) until the client
 * goes away (stdin ends) or `signal` fires. Nothing else may write to `stdout` meanwhile.
 */
export async function serveAgentOverStdio(
  agent: ServableAgent,
  options: ServeAgentOptions & { stdin?: Readable; stdout?: Writable } = {},
): Promise<void> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const stdin = options.stdin ?? process.stdin;
  const server = await newServer(agent, new AgentSessions(), options);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport(stdin, options.stdout ?? process.stdout));
  const stop = () => void server.close();
  stdin.once('end', stop);
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) stop();
  await closed;
  stdin.off('end', stop);
  options.signal?.removeEventListener('abort', stop);
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
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.exposeToNetwork)
    throw new ConfigError(
      `serving the agent on ${host} lets other machines run it and its tools; say so with exposeToNetwork (raf mcp serve --expose-agent-to-network), or keep the host at 127.0.0.1`,
    );
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const token = options.token ?? newLocalToken();
  const sessions = new AgentSessions();
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
      const id = req.headers['mcp-session-id'];
      const existing = typeof id === 'string' ? transports.get(id) : undefined;
      if (existing) return await existing.handleRequest(req, res);
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
      await transport.handleRequest(req, res);
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
    await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  options.signal?.addEventListener('abort', () => void close(), { once: true });
  return { url: `http://${shown}:${port}/mcp`, token, close, closed };
}
