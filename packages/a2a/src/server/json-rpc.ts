import type { AgentCard } from '@a2a-js/sdk';
import type { A2ARequestHandler, AgentExecutor, TaskStore, User } from '@a2a-js/sdk/server';

/**
 * What to answer an A2A JSON-RPC POST with: one JSON body, or an SSE stream. A notification (a
 * request without `id`) is answered `204` with an empty body: JSON-RPC 2.0 sends it no response.
 */
export type A2AHttpReply =
  | { status: number; headers: Record<string, string>; body: string }
  | { status: number; headers: Record<string, string>; events: AsyncIterable<string> };

export interface A2AJsonRpcOptions {
  /** Who is asking: tasks are kept per user (a tenant never sees another's). */
  user?: User;
  /** Also answer A2A 0.3 peers (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`). */
  legacyCompat?: boolean;
}

/** An authenticated caller named by its tenant. */
export class TenantUser implements User {
  constructor(private readonly tenant: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.tenant;
  }
}

type Headers = Record<string, string | string[] | undefined>;
const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};

interface RpcHandler {
  handle(body: Record<string, unknown>, context: unknown): Promise<unknown>;
}

/**
 * Answers one A2A JSON-RPC request (a body already parsed as JSON) over `@a2a-js/sdk`'s own
 * transport handler, with whatever HTTP server the caller runs: the SDK's adapter needs Express,
 * this one returns the status, headers and body (or SSE events) to write. It follows the SDK's
 * Express adapter: the `A2A-Version` header picks the 1.0 methods (`SendMessage`, …) or, with
 * `legacyCompat`, the 0.3 ones (`message/send`, …).
 */
export async function answerA2AJsonRpc(
  handler: A2ARequestHandler,
  body: unknown,
  headers: Headers,
  options: A2AJsonRpcOptions = {},
): Promise<A2AHttpReply> {
  const server = await import('@a2a-js/sdk/server');
  const {
    Extensions,
    A2A_VERSION_HEADER,
    HTTP_EXTENSION_HEADER,
    SSE_HEADERS,
    formatSSEEvent,
    formatSSEErrorEvent,
  } = await import('@a2a-js/sdk');
  const version = header(headers, A2A_VERSION_HEADER);
  const legacy = options.legacyCompat === true && (version ?? '0.3') === '0.3';
  const compat = legacy ? await import('@a2a-js/sdk/compat/v0_3/server') : undefined;
  const mapError = compat
    ? compat.LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : server.JsonRpcTransportHandler.mapToJSONRPCError;
  const id = (body as { id?: unknown } | null)?.id ?? null;
  const json = (status: number, value: unknown): A2AHttpReply => ({
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return json(200, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
  // JSON-RPC 2.0 §4.1: the server must not reply to a notification, not even with an error. The
  // SDK (1.3) answers every request, its transport handler and its Express adapter alike, so the
  // answer is taken here and dropped. Only a valid request is a notification: anything else
  // (no `jsonrpc: "2.0"`, no method) still gets its Invalid Request error, with `id: null`.
  const notification = isNotification(body);
  try {
    const context = server.defaultServerCallContextBuilder({
      extensions: Extensions.parseServiceParameter(
        header(headers, legacy ? 'X-A2A-Extensions' : HTTP_EXTENSION_HEADER) ??
          header(headers, HTTP_EXTENSION_HEADER),
      ),
      user: options.user ?? new server.UnauthenticatedUser(),
      headers,
      ...(version !== undefined && { requestedVersion: version }),
    });
    server.validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
    const transport: RpcHandler = compat
      ? (new compat.LegacyJsonRpcTransportHandler(handler) as unknown as RpcHandler)
      : (new server.JsonRpcTransportHandler(handler) as unknown as RpcHandler);
    const answer = await transport.handle(withParams(body as Record<string, unknown>, legacy), context);
    if (notification) {
      // Read a streamed answer to its end (the call runs as it would), then say nothing.
      if (isAsyncIterable(answer)) for await (const _ of answer);
      return NO_CONTENT;
    }
    if (isAsyncIterable(answer)) {
      const events = async function* () {
        try {
          for await (const event of answer) yield formatSSEEvent(event);
        } catch (error) {
          yield formatSSEErrorEvent({ jsonrpc: '2.0', id, error: mapError(error) });
        }
      };
      return { status: 200, headers: { ...lower(SSE_HEADERS) }, events: events() };
    }
    return json(200, answer);
  } catch (error) {
    if (notification) return NO_CONTENT;
    const mapped = mapError(error);
    return json(mapped.code === -32603 ? 500 : 200, { jsonrpc: '2.0', id, error: mapped });
  }
}

const NO_CONTENT: A2AHttpReply = { status: 204, headers: {}, body: '' };

/** A valid JSON-RPC 2.0 request without `id` (an `id` of `null` is a request, answered). */
function isNotification(body: object): boolean {
  const request = body as { jsonrpc?: unknown; method?: unknown };
  return (
    !Object.hasOwn(body, 'id') &&
    request.jsonrpc === '2.0' &&
    typeof request.method === 'string' &&
    request.method !== ''
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/** The methods the SDK's transport handlers (1.0, 0.3) answer (`@a2a-js/sdk` 1.3). */
const METHODS = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'SubscribeToTask',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'DeleteTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'GetExtendedAgentCard',
]);
const LEGACY_METHODS = new Set([
  'message/send',
  'message/stream',
  'tasks/resubscribe',
  'tasks/get',
  'tasks/cancel',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
]);

/**
 * An unknown method sent without `params` (JSON-RPC allows leaving them out): given empty ones,
 * so the SDK answers "method not found" (-32601), not "invalid parameters" (-32602) — it checks
 * the parameters before the method.
 */
function withParams(body: Record<string, unknown>, legacy: boolean): Record<string, unknown> {
  const known = legacy ? LEGACY_METHODS : METHODS;
  if (body.params !== undefined || typeof body.method !== 'string' || known.has(body.method)) return body;
  return { ...body, params: {} };
}

function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The SDK's task store (what `createA2ARequestHandler`'s `taskStore` wraps and returns). */
export type A2ATaskStore = TaskStore;

/**
 * The SDK's request handler for one agent, with an in-memory task store kept per user (tenant),
 * or the store `taskStore` makes around it (a server that keeps tasks where other replicas read
 * them): what `answerA2AJsonRpc` answers with. `card` answers the handler's capability checks.
 */
export async function createA2ARequestHandler(
  card: AgentCard,
  executor: AgentExecutor,
  taskStore?: (memory: TaskStore) => TaskStore,
): Promise<A2ARequestHandler> {
  const { DefaultRequestHandler, InMemoryTaskStore } = await import('@a2a-js/sdk/server');
  const memory = new InMemoryTaskStore();
  return new DefaultRequestHandler(card, taskStore ? taskStore(memory) : memory, executor);
}
