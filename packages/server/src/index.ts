export { openApiDocument } from './api/openapi.js';
export { streamRunEvents } from './api/v1-routes.js';
export { TenantTokens } from './auth/tenant-tokens.js';
export { InMemoryRunStore } from './events/memory-run-store.js';
export { type OpenRunStoreOptions, openRunStore } from './events/open-run-store.js';
export {
  RUN_STATUSES,
  type RunPatch,
  type RunRecord,
  type RunStatus,
  type RunStore,
  type RunStoreOptions,
  type SequencedEvent,
} from './events/run-store.js';
export {
  type MountOptions,
  type RequestContext,
  type RouteHandler,
  ServerApp,
  type ServerAppOptions,
  sendJson,
} from './http/app.js';
export { DEFAULT_MAX_BODY_BYTES, readBody, readJsonBody } from './http/body.js';
export { HttpError, notFound } from './http/http-error.js';
export { openSse, type SseStream } from './http/sse.js';
export { type AgUiRunIds, agUiIntent, interruptId, toAgUiEvents } from './protocols/ag-ui.js';
export { type McpRouteOptions, mcpRoute } from './protocols/mcp-route.js';
export { mountProtocols, type ProtocolOptions } from './protocols/mount-protocols.js';
export {
  type ChatIntent,
  type ChatMessageMetadata,
  type ChatRequest,
  chatIntent,
  chatRequestSchema,
  toUIMessageChunks,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageChunk,
} from './protocols/ui-message-stream.js';
export {
  DurableEvents,
  type DurableRunHost,
  type DurableRunObserver,
} from './runs/durable-runs.js';
export {
  type RunLimits,
  RunRegistry,
  type RunRegistryOptions,
  type StartRunOptions,
} from './runs/run-registry.js';
export { type RunnableAgent, type ServedAgent, ServedAgents } from './runs/served-agents.js';
export { type RunEventsOptions, ServedRun } from './runs/served-run.js';
export { type CreateServerOptions, createServer } from './start-server.js';
