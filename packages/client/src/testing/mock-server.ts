import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { anthropicProtocol } from './mock-anthropic-wire.js';
import { openAIProtocol } from './mock-openai-wire.js';
import type { MockProtocol, WireOptions } from './mock-protocol.js';
import { responsesProtocol } from './mock-responses-wire.js';
import type { ScriptTurn } from './script-turn.js';

/** A turn for the mock server: a model answer, or a fault to inject. */
export interface MockTurn extends ScriptTurn {
  /** Answer with this HTTP status and `errorBody` instead of a completion. */
  status?: number;
  errorBody?: unknown;
  headers?: Record<string, string>;
  /** Wait before sending the response headers. */
  delayMs?: number;
  /** Wait between SSE events. */
  chunkDelayMs?: number;
  /** Send this many SSE events, then go silent with the connection open. */
  stallAfterChunks?: number;
  /** Send this many SSE events, then destroy the connection. */
  dropAfterChunks?: number;
  /** Send this many SSE events, then a line of broken JSON. */
  malformedAfterChunks?: number;
  /** End the stream without its end marker (`data: [DONE]`; Anthropic: the `message_stop` event). */
  omitDone?: boolean;
  /** Split each tool call's arguments into this many deltas (default 3). */
  argumentChunks?: number;
  /** Wire usage object sent as is (e.g. DeepSeek's cache fields; Anthropic: in `message_delta`). */
  rawUsage?: Record<string, unknown>;
  /** Send this exact body (SSE text) instead of generating one. */
  rawBody?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (undefined when it was not JSON). */
  body: Record<string, unknown> | undefined;
  /** True when the client closed the connection before the answer was complete. */
  closedEarly: boolean;
}

export type MockTurnInput = MockTurn | ((request: RecordedRequest, index: number) => MockTurn);

export interface MockModelServerOptions {
  /** Answers in order; or one function that answers every request (for endless scripts). */
  turns?: MockTurnInput[] | ((request: RecordedRequest, index: number) => MockTurn);
  /** The model name the answers report (default `mock-model`). */
  model?: string;
  /** Path prefix before `/chat/completions` or `/messages` (default `/v1`). */
  basePath?: string;
  /** Keep every request for assertions (default true; turn off for long benchmarks). */
  recordRequests?: boolean;
}

export interface MockModelServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `url` + base path: give this to a client as its base URL. */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Append turns to the script. */
  enqueue(...turns: MockTurnInput[]): void;
  /** How many chat requests were answered from the script so far. */
  readonly served: number;
  close(): Promise<void>;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function streamTurn(
  res: ServerResponse,
  turn: MockTurn,
  events: string[],
  protocol: MockProtocol,
  wire: WireOptions,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...turn.headers });
  if (turn.rawBody !== undefined) {
    res.end(turn.rawBody);
    return;
  }
  for (let i = 0; i < events.length; i++) {
    // Pause before faults too, so what was sent before a drop reaches the client first.
    if (turn.chunkDelayMs && i > 0) await delay(turn.chunkDelayMs);
    if (res.destroyed) return;
    if (i === turn.stallAfterChunks) return; // stays open until the client gives up or the server closes
    if (i === turn.dropAfterChunks) {
      res.socket?.destroy();
      return;
    }
    if (i === turn.malformedAfterChunks) {
      res.end(protocol.malformedEvent);
      return;
    }
    res.write(events[i]);
  }
  if (turn.stallAfterChunks !== undefined && turn.stallAfterChunks >= events.length) return;
  const end = typeof protocol.endEvent === 'function' ? protocol.endEvent(turn, wire) : protocol.endEvent;
  res.end(turn.omitDone ? undefined : end);
}

/**
 * A real HTTP server on 127.0.0.1 (ephemeral port) that speaks OpenAI Chat Completions, streamed
 * and not, answering from a script of turns and faults and recording every request.
 */
export function startMockModelServer(options: MockModelServerOptions = {}): Promise<MockModelServer> {
  return startMockServer(openAIProtocol, options);
}

/**
 * The same server speaking the Anthropic Messages API (`POST /v1/messages`, SSE events
 * `message_start` … `message_stop`, errors as `{"type":"error","error":{…}}`). Give a client
 * `server.url` (or `server.baseURL`) as its base URL. Like the real API, it answers 400 to a
 * request without `anthropic-version` or `max_tokens`, with a `system` role in `messages`, or with
 * a `tool_result` that answers no `tool_use` of the message before it.
 */
export function startMockAnthropicServer(options: MockModelServerOptions = {}): Promise<MockModelServer> {
  return startMockServer(anthropicProtocol, options);
}

/**
 * The same server speaking the OpenAI Responses API (`POST /v1/responses`, SSE events
 * `response.created` … `response.completed`, reasoning items encrypted as with `store: false`).
 * Like the real API, it answers 400 to a `function_call_output` that answers no `function_call`
 * of the input, and to a reasoning item sent back without its encrypted content under `store: false`.
 */
export function startMockResponsesServer(options: MockModelServerOptions = {}): Promise<MockModelServer> {
  return startMockServer(responsesProtocol, options);
}

async function startMockServer(
  protocol: MockProtocol,
  options: MockModelServerOptions,
): Promise<MockModelServer> {
  const model = options.model ?? 'mock-model';
  const basePath = (options.basePath ?? '/v1').replace(/\/+$/, '');
  const script = typeof options.turns === 'function' ? undefined : [...(options.turns ?? [])];
  const answerAll = typeof options.turns === 'function' ? options.turns : undefined;
  const requests: RecordedRequest[] = [];
  let served = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: Record<string, unknown> | undefined;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      closedEarly: false,
    };
    if (options.recordRequests !== false) requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) recorded.closedEarly = true;
    });
    if (req.method === 'GET' && path === `${basePath}/models`) {
      sendJson(res, 200, protocol.modelList(model));
      return;
    }
    if (req.method !== 'POST' || path !== `${basePath}${protocol.route}`) {
      sendJson(res, 404, protocol.errorBody(404, `mock model server: no route for ${req.method} ${path}`));
      return;
    }
    if (!body) {
      sendJson(res, 400, protocol.errorBody(400, 'mock model server: the request body is not JSON'));
      return;
    }
    const problem = protocol.checkRequest?.(recorded);
    if (problem !== undefined) {
      sendJson(res, 400, protocol.errorBody(400, problem, 'invalid_request_error'));
      return;
    }
    const index = served;
    const input = answerAll ?? script?.[index];
    if (!input) {
      sendJson(
        res,
        500,
        protocol.errorBody(
          500,
          `mock model server: script exhausted: ${index} turn(s) scripted, request #${index + 1} has no answer`,
          'script_exhausted',
        ),
      );
      return;
    }
    served++;
    const turn = typeof input === 'function' ? input(recorded, index) : input;
    if (turn.delayMs) await delay(turn.delayMs);
    if (res.destroyed) return;
    if (turn.status !== undefined && (turn.status < 200 || turn.status >= 300)) {
      const errorBody = turn.errorBody ?? protocol.errorBody(turn.status, `mock error ${turn.status}`);
      if (typeof errorBody === 'string') {
        res.writeHead(turn.status, { 'content-type': 'text/plain', ...turn.headers });
        res.end(errorBody);
      } else sendJson(res, turn.status, errorBody, turn.headers);
      return;
    }
    const wire = {
      turnIndex: index,
      model,
      argumentChunks: turn.argumentChunks ?? 3,
      ...(turn.rawUsage && { rawUsage: turn.rawUsage }),
    };
    if (body.stream === true) await streamTurn(res, turn, protocol.streamEvents(turn, wire), protocol, wire);
    else sendJson(res, 200, protocol.completionBody(turn, wire), turn.headers);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, protocol.errorBody(500, `mock model server: ${String(error)}`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}${basePath}`,
    requests,
    enqueue(...turns) {
      if (!script) throw new Error('mock model server: enqueue() needs a turn list, not a function script');
      script.push(...turns);
    },
    get served() {
      return served;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
