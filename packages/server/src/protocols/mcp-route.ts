import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { getErrorMessage } from '@raf/core';
import { decideApprovals } from '@raf/mcp';
import * as z from 'zod';
import { type RequestContext, type RouteHandler, sendJson } from '../http/app.js';
import { readJsonBody } from '../http/body.js';
import { HttpError, methodNotAllowed, notFound } from '../http/http-error.js';
import type { RunRegistry } from '../runs/run-registry.js';
import type { ServedAgent } from '../runs/served-agents.js';
import type { ServedRun } from '../runs/served-run.js';
import { tenantOf } from './chat-routes.js';
import { MCP_MAX_APPROVAL_ROUNDS, mcpFailure, mcpToolName, modernMcp, readCallRound } from './mcp-modern.js';

export interface McpRouteOptions {
  /** A paused run: `ask` (default) through MCP elicitation; `approve`/`deny` decide alone (as `raf mcp serve`). */
  approvals?: 'ask' | 'approve' | 'deny';
}

/** Open MCP sessions per tenant: a client that never closes its sessions evicts its own oldest. */
const MAX_SESSIONS_PER_TENANT = 64;
const MAX_APPROVAL_ROUNDS = MCP_MAX_APPROVAL_ROUNDS;

/**
 * One served agent as one MCP tool, `raf mcp serve`'s shape (`{input, session?}` → the answer,
 * `{sessionId, finishReason, text, runId}` as structured content), but on the served runs: each
 * call is a run of the caller's tenant in the registry (so `/v1` sees it), approvals are decided
 * by `@raf/mcp`'s `decideApprovals` (elicitation), and a run left paused is answered later on
 * `/v1/runs/{id}/approvals`.
 */
function registerServedAgent(
  server: McpServer,
  registry: RunRegistry,
  agent: ServedAgent,
  tenant: string,
  mode: 'ask' | 'approve' | 'deny',
): void {
  server.registerTool(
    mcpToolName(agent.name),
    {
      description:
        agent.description ?? `Runs the agent ${agent.name}: give it a task or a question in input.`,
      inputSchema: {
        input: z.string().min(1).describe('The message for the agent'),
        session: z
          .string()
          .optional()
          .describe("Continue an earlier conversation: the sessionId of that call's answer"),
      },
      outputSchema: { sessionId: z.string(), finishReason: z.string(), text: z.string(), runId: z.string() },
    },
    async ({ input, session }, extra): Promise<CallToolResult> => {
      try {
        let run: ServedRun = await registry.start(agent.name, {
          input,
          tenant,
          ...(session !== undefined && { sessionId: session }),
        });
        const acc = { after: 0, text: '', progress: 0 };
        const progressToken = extra._meta?.progressToken;
        for (let round = 0; round < MAX_APPROVAL_ROUNDS; round++) {
          const read = await readCallRound(run, acc, progressToken, (n) => extra.sendNotification(n));
          if ('result' in read) return read.result;
          const { requests } = read;
          const decided = await decideApprovals(server, agent.name, requests, {
            mode,
            requestId: extra.requestId,
            signal: extra.signal,
          });
          if (typeof decided === 'string')
            return mcpFailure(
              `${decided} (run ${run.runId}: answer it with POST /v1/runs/${run.runId}/approvals)`,
            );
          run = await registry.approve(run.runId, tenant, decided);
        }
        return mcpFailure(`the agent asked for approval more than ${MAX_APPROVAL_ROUNDS} times in one call`);
      } catch (error) {
        return mcpFailure(`the agent failed: ${getErrorMessage(error)}`);
      }
    },
  );
}

const PARSE_ERROR = Symbol('parse error');

/**
 * The body of an MCP POST; not JSON (or nested too deep): answered as a JSON-RPC parse error
 * (`-32700`, status 400), the shape an MCP client reads, as the SDK's own transports answer.
 */
async function readMcpBody(context: RequestContext): Promise<unknown> {
  try {
    return await readJsonBody(context.req, context.maxBodyBytes);
  } catch (error) {
    if (!HttpError.isHttpError(error) || error.status !== 400) throw error;
    sendJson(context.res, 400, {
      jsonrpc: '2.0',
      id: null,
      error: { code: error.reason === 'too_deep' ? -32600 : -32700, message: error.message },
    });
    return PARSE_ERROR;
  }
}

/**
 * `/mcp`: the served agents as an MCP server over streamable HTTP (one tool per agent), behind
 * the server's own checks (Host, Origin, the bearer token → the tenant), on both revisions: a
 * 2026-07-28 request (no session, the per-request envelope) goes to the SDK v2's handler, a
 * 2025 one to the sessionful 1.x wiring. An MCP session belongs to the tenant that opened it:
 * another token naming its id is told it does not exist.
 */
export function mcpRoute(registry: RunRegistry, options: McpRouteOptions = {}): RouteHandler {
  const sessions = new Map<string, { tenant: string; transport: StreamableHTTPServerTransport }>();
  const mode = options.approvals ?? 'ask';
  let modern: ReturnType<typeof modernMcp> | undefined;
  return async (context) => {
    const { req, res } = context;
    const tenant = tenantOf(context);
    if (context.url.pathname !== '/mcp') throw notFound(context.url.pathname);
    // The Streamable HTTP transport takes these three; any other method is the wrong one, not bad input.
    if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'DELETE')
      throw methodNotAllowed(res, req.method, '/mcp', ['GET', 'POST', 'DELETE']);
    const body = req.method === 'POST' ? await readMcpBody(context) : undefined;
    if (body === PARSE_ERROR) return;
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const known = sessions.get(id);
      if (!known || known.tenant !== tenant) throw new HttpError(404, 'not_found', 'MCP session not found');
      await known.transport.handleRequest(req, res, body);
      return;
    }
    modern ??= modernMcp(registry, mode, context.maxBodyBytes);
    if (await (await modern).handle(req, res, body, tenant, context.signal)) return;
    if (req.method !== 'POST')
      throw new HttpError(400, 'no_session', 'no MCP session: start one with an initialize POST');
    const [{ McpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ]);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { tenant, transport });
        const own = [...sessions].filter(([, s]) => s.tenant === tenant);
        for (const [id, oldest] of own.slice(0, Math.max(0, own.length - MAX_SESSIONS_PER_TENANT))) {
          sessions.delete(id);
          void oldest.transport.close().catch(() => undefined);
        }
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = new McpServer({ name: 'raf-serve', version: '0.1.0' }, { capabilities: { tools: {} } });
    for (const agent of registry.agents.list()) registerServedAgent(server, registry, agent, tenant, mode);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}
