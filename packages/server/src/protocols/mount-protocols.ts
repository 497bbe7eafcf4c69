import { v1Routes } from '../api/v1-routes.js';
import type { RouteHandler, ServerApp } from '../http/app.js';
import { type A2AOptions, a2aRoutes, CARD_PATH } from './a2a-routes.js';
import { agUiRoute, chatResumeRoute, chatRoute } from './chat-routes.js';
import { type McpRouteOptions, mcpRoute } from './mcp-route.js';

export interface ProtocolOptions extends A2AOptions {
  mcp?: McpRouteOptions;
}

const AGENT_PROTOCOL = /^\/v1\/agents\/([^/]+)\/(chat|ag-ui)$/;
const CHAT_RESUME = /^\/v1\/agents\/([^/]+)\/chat\/([^/]+)\/stream$/;

/**
 * Mounts the protocols on the served runs (SPEC §14.3) beside the `/v1` API: the AI SDK UI message
 * stream at `POST /v1/agents/{name}/chat` (and its resume, `GET …/chat/{id}/stream`), AG-UI at `POST /v1/agents/{name}/ag-ui`, A2A at
 * `/a2a/{name}` (cards public, JSON-RPC with a token), MCP at `/mcp` (one tool per agent, the same
 * tokens). Every other `/v1/agents/…` path is the API's.
 */
export function mountProtocols(app: ServerApp, options: ProtocolOptions = {}): ServerApp {
  const api = v1Routes();
  const agents: RouteHandler = (context) => {
    const resumed = CHAT_RESUME.exec(context.url.pathname);
    if (resumed)
      return chatResumeRoute(context, decodeURIComponent(resumed[1]!), decodeURIComponent(resumed[2]!));
    const match = AGENT_PROTOCOL.exec(context.url.pathname);
    if (!match) return api(context);
    const name = decodeURIComponent(match[1]!);
    return match[2] === 'chat' ? chatRoute(context, name) : agUiRoute(context, name);
  };
  app.mount('/v1/agents', agents);
  const a2a = a2aRoutes(app.registry, options);
  app.mount('/a2a', a2a.jsonRpc);
  for (const name of a2a.names)
    app.mount(`/a2a/${encodeURIComponent(name)}/.well-known`, a2a.cards, { public: true });
  app.mount(CARD_PATH, a2a.cards, { public: true });
  app.mount('/mcp', mcpRoute(app.registry, options.mcp));
  return app;
}
