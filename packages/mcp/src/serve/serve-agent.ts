import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
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

export interface HttpAgentServer {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  close(): Promise<void>;
  /** Settles when the server stopped (`close()` or the signal). */
  closed: Promise<void>;
}

/**
 * Serves the agent over streamable HTTP at `/mcp` (one MCP session per client; the agent's
 * conversations are shared by id). Binds 127.0.0.1 unless `host` says otherwise, and checks
 * the `Host` header against the address it serves (DNS rebinding protection).
 */
export async function serveAgentOverHttp(
  agent: ServableAgent,
  options: ServeAgentOptions & { port?: number; host?: string } = {},
): Promise<HttpAgentServer> {
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const host = options.host ?? '127.0.0.1';
  const sessions = new AgentSessions();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];
  const reject = (res: ServerResponse, status: number, message: string) =>
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));

  const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    try {
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
        enableDnsRebindingProtection: true,
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
  return { url: `http://${shown}:${port}/mcp`, close, closed };
}
