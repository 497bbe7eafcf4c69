import {
  type AgentResponseUpdate,
  CancelledError,
  ChatClientError,
  TimeoutError,
  userMessage,
} from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicChatClient } from './anthropic/anthropic-client.js';
import type { HttpChatClient } from './http/http-chat-client.js';
import type { HttpClientOptions } from './http/http-client-options.js';
import { OpenAICompatibleChatClient } from './openai-compatible/openai-compatible-client.js';
import { OpenAIResponsesChatClient } from './responses/responses-client.js';
import {
  type MockModelServer,
  type MockModelServerOptions,
  type MockTurnInput,
  startMockAnthropicServer,
  startMockModelServer,
  startMockResponsesServer,
} from './testing/mock-server.js';
import { drain, thrown } from './testing/test-helpers.js';

type ClientOptions = Omit<HttpClientOptions, 'model'> & { model?: string };

// Every protocol runs on the shared transport: the same answer gives the same updates, and the
// same fault the same result, whatever the wire format.

/** One wire protocol and its mock server. */
interface Protocol {
  name: string;
  start(options: MockModelServerOptions): Promise<MockModelServer>;
  client(baseURL: string, options: ClientOptions): HttpChatClient;
  /** SSE events the mock sends before the first text or tool-call delta. */
  lead: number;
  /** The chat route below the server's base URL. */
  route: string;
  errorBody(message: string): unknown;
  /** What the error message says for an error body with this message (and Anthropic error type). */
  errorText(message: string, type?: string): string;
  malformedText: string;
  /** A body that stops after some text, before the model finished. */
  cutBody: string;
  cutUpdates: unknown[];
  cutText: string;
  /** A body carrying a provider error "overloaded". */
  providerErrorBody: string;
  providerErrorText: string;
}

const PROTOCOLS: Protocol[] = [
  {
    name: 'openai',
    start: startMockModelServer,
    client: (baseURL, options) => new OpenAICompatibleChatClient({ model: 'm1', ...options, baseURL }),
    lead: 1, // the role chunk
    route: '/chat/completions',
    errorBody: (message) => ({ error: { message, type: 'invalid_request_error' } }),
    errorText: (message) => message,
    malformedText: 'malformed SSE data: {"choices": [ {"delta": oops',
    cutBody: 'data: {"id":"x","choices":[{"index":0,"delta":{"content":"cut"}}]}\n\n',
    cutUpdates: [
      { type: 'response-metadata', id: 'x' },
      { type: 'text-delta', delta: 'cut' },
    ],
    cutText: 'the stream ended before the model finished (no finish_reason and no [DONE])',
    providerErrorBody: 'data: {"error":{"message":"overloaded"}}\n\n',
    providerErrorText: 'provider error: overloaded',
  },
  {
    name: 'anthropic',
    start: startMockAnthropicServer,
    client: (baseURL, options) => new AnthropicChatClient({ model: 'm1', ...options, baseURL }),
    lead: 3, // message_start, ping, content_block_start
    route: '/messages',
    errorBody: (message) => ({ type: 'error', error: { type: 'invalid_request_error', message } }),
    errorText: (message, type = 'invalid_request_error') => `${type}: ${message}`,
    malformedText: 'malformed SSE data: {"type": "content_block_delta", oops',
    cutBody:
      'event: message_start\ndata: {"type":"message_start","message":{"id":"x","content":[]}}\n\n' +
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut"}}\n\n',
    cutUpdates: [
      { type: 'response-metadata', id: 'x' },
      { type: 'text-delta', delta: 'cut' },
    ],
    cutText: 'the stream ended before the model finished (no stop_reason and no message_stop)',
    providerErrorBody:
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    providerErrorText: 'provider error: overloaded_error: Overloaded',
  },
  {
    name: 'responses',
    start: startMockResponsesServer,
    client: (baseURL, options) => new OpenAIResponsesChatClient({ model: 'm1', ...options, baseURL }),
    lead: 4, // response.created, response.in_progress, output_item.added, content_part.added
    route: '/responses',
    errorBody: (message) => ({ error: { message, type: 'invalid_request_error', param: null, code: null } }),
    errorText: (message) => message,
    malformedText: 'malformed SSE data: {"type": "response.output_text.delta", oops',
    cutBody:
      'event: response.created\ndata: {"type":"response.created","response":{"id":"x","status":"in_progress","output":[]}}\n\n' +
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"cut"}\n\n',
    cutUpdates: [
      { type: 'response-metadata', id: 'x' },
      { type: 'text-delta', delta: 'cut' },
    ],
    cutText: 'the stream ended before the model finished (no response.completed)',
    providerErrorBody:
      'event: error\ndata: {"type":"error","code":"server_error","message":"overloaded"}\n\n',
    providerErrorText: 'provider error: server_error: overloaded',
  },
];

const tool = { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } };
const usage = { promptTokens: 9, completionTokens: 3, totalTokens: 12 };
const metadata: AgentResponseUpdate = { type: 'response-metadata', id: 'resp_1', model: 'mock-model' };

/** Script turns and the exact updates every protocol must give for them. */
const SCENARIOS: Record<string, { turn: MockTurnInput; expected: AgentResponseUpdate[] }> = {
  'streams text as deltas and finishes with the usage': {
    turn: { id: 'resp_1', text: 'Hello there world', usage },
    expected: [
      metadata,
      { type: 'text-delta', delta: 'Hello ' },
      { type: 'text-delta', delta: 'there ' },
      { type: 'text-delta', delta: 'world' },
      { type: 'usage', usage },
      { type: 'finish', reason: 'stop', usage },
    ],
  },
  'assembles tool calls whose arguments stream in pieces, and ends them in call order': {
    turn: {
      id: 'resp_1',
      text: 'Checking.',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_b', name: 'get_time', arguments: {} },
      ],
      argumentChunks: 3,
      usage,
    },
    expected: [
      metadata,
      { type: 'text-delta', delta: 'Checking.' },
      { type: 'tool-call-start', callId: 'call_a', name: 'get_weather' },
      { type: 'tool-call-args', callId: 'call_a', delta: '{"city' },
      { type: 'tool-call-args', callId: 'call_a', delta: '":"Par' },
      { type: 'tool-call-args', callId: 'call_a', delta: 'is"}' },
      { type: 'tool-call-start', callId: 'call_b', name: 'get_time' },
      { type: 'tool-call-args', callId: 'call_b', delta: '{' },
      { type: 'tool-call-args', callId: 'call_b', delta: '}' },
      { type: 'usage', usage },
      { type: 'tool-call-end', callId: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool-call-end', callId: 'call_b', name: 'get_time', arguments: '{}' },
      { type: 'finish', reason: 'toolCalls', usage },
    ],
  },
  'gives reasoning (DeepSeek/Agnes reasoning_content, Anthropic thinking) as reasoning deltas': {
    turn: { id: 'resp_1', reasoning: 'Let me think.', text: 'Yes.' },
    expected: [
      metadata,
      { type: 'reasoning-delta', delta: 'Let me ' },
      { type: 'reasoning-delta', delta: 'think.' },
      { type: 'text-delta', delta: 'Yes.' },
      { type: 'finish', reason: 'stop' },
    ],
  },
};

describe.each(PROTOCOLS)('$name', (protocol) => {
  let server: MockModelServer | undefined;
  let client: HttpChatClient | undefined;
  const KEY = 'sk-secret-1234567890';

  async function setup(turns: MockTurnInput[], extra: ClientOptions = {}) {
    server = await protocol.start({ turns });
    client = protocol.client(server.baseURL, {
      provider: protocol.name,
      apiKey: KEY,
      retry: { initialDelayMs: 10, maxDelayMs: 20 },
      ...extra,
    });
    return { server, client };
  }

  afterEach(async () => {
    await client?.close();
    await server?.close();
    client = undefined;
    server = undefined;
  });

  const ok: MockTurnInput = { text: 'recovered' };

  describe('the same updates', () => {
    it.each(Object.entries(SCENARIOS))('%s', async (_label, { turn, expected }) => {
      const { client } = await setup([turn]);
      expect(await drain(client.run([userMessage('x')], { tools: [tool] }))).toEqual(expected);
    });
  });

  describe('retries', () => {
    it.each([
      ['retry-after-ms', { 'retry-after-ms': '150' }, 150],
      ['retry-after in seconds', { 'retry-after': '0.2' }, 200],
    ])('honours 429 with %s', async (_label, headers, waitMs) => {
      const { server, client } = await setup([{ status: 429, headers }, ok]);
      const started = performance.now();
      const updates = await drain(client.run([userMessage('x')]));
      expect(performance.now() - started).toBeGreaterThanOrEqual(waitMs - 5);
      expect(updates.some((u) => u.type === 'text-delta' && u.delta === 'recovered')).toBe(true);
      expect(server.requests).toHaveLength(2);
    });

    it('honours 429 with retry-after as an HTTP date', async () => {
      const date = new Date(Date.now() + 2000).toUTCString();
      const { server, client } = await setup([{ status: 429, headers: { 'retry-after': date } }, ok]);
      const started = performance.now();
      await drain(client.run([userMessage('x')]));
      // An HTTP date has whole seconds, so the wait is between 1 and 2 s.
      expect(performance.now() - started).toBeGreaterThanOrEqual(900);
      expect(server.requests).toHaveLength(2);
    });

    it('retries a 500 and then succeeds', async () => {
      const { server, client } = await setup([{ status: 500 }, ok]);
      const updates = await drain(client.run([userMessage('x')]));
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
      expect(server.requests).toHaveLength(2);
    });

    it('does not retry a 400, and names provider, URL and status without the key', async () => {
      const { server, client } = await setup([
        { status: 400, errorBody: protocol.errorBody(`Invalid model for key ${KEY}`) },
      ]);
      const error = await thrown(() => drain(client.run([userMessage('x')])));
      expect(server.requests).toHaveLength(1);
      expect(ChatClientError.isInstance(error)).toBe(true);
      const e = error as ChatClientError;
      expect(e.status).toBe(400);
      expect(e.retryable).toBe(false);
      expect(e.message).toBe(
        `${protocol.name}: POST ${server.baseURL}${protocol.route} failed with HTTP 400: ${protocol.errorText('Invalid model for key [redacted]')}`,
      );
      expect(e.provider).toBe(protocol.name);
      expect(JSON.stringify({ m: e.message, b: e.responseBody })).not.toContain(KEY);
    });

    it('gives up after maxRetries and says how many attempts were made', async () => {
      const { server, client } = await setup([{ status: 503 }, { status: 503 }, { status: 503 }, ok]);
      const error = (await thrown(() => drain(client.run([userMessage('x')])))) as ChatClientError;
      expect(
        error.message.endsWith(
          `HTTP 503: ${protocol.errorText('mock error 503', 'api_error')} (after 3 attempts)`,
        ),
      ).toBe(true);
      expect(server.requests).toHaveLength(3);
    });

    it('retries a refused connection and then reports it', async () => {
      const { server } = await setup([]);
      const deadURL = server.baseURL;
      await server.close();
      const refused = protocol.client(deadURL, {
        provider: protocol.name,
        maxRetries: 1,
        retry: { initialDelayMs: 5 },
      });
      const error = (await thrown(() => drain(refused.run([userMessage('x')])))) as ChatClientError;
      await refused.close();
      expect(ChatClientError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(
        new RegExp(
          `^${protocol.name}: POST http://127\\.0\\.0\\.1:\\d+/v1${protocol.route} failed: .*ECONNREFUSED.*\\(after 2 attempts\\)$`,
        ),
      );
    });

    it('retries when no first chunk arrives in time, then reports a first-chunk timeout', async () => {
      const { server, client } = await setup(
        [
          { text: 'late', delayMs: 1000 },
          { text: 'late', delayMs: 1000 },
        ],
        {
          maxRetries: 1,
          timeouts: { firstChunkMs: 100 },
        },
      );
      const error = await thrown(() => drain(client.run([userMessage('x')])));
      expect(TimeoutError.isInstance(error)).toBe(true);
      expect((error as TimeoutError).phase).toBe('firstChunk');
      expect((error as Error).message).toMatch(
        /timed out: no answer within 100 ms \(firstChunk timeout\) \(after 2 attempts\)/,
      );
      expect(server.requests).toHaveLength(2);
    });
  });

  describe('broken streams', () => {
    it('surfaces a connection reset mid-stream as an error update after the text received', async () => {
      const { client } = await setup([
        { text: 'alpha beta gamma delta', dropAfterChunks: protocol.lead + 2, chunkDelayMs: 20 },
      ]);
      const updates = await drain(client.run([userMessage('x')]));
      const text = updates
        .filter((u) => u.type === 'text-delta')
        .map((u) => (u.type === 'text-delta' ? u.delta : ''));
      expect(text).toEqual(['alpha ', 'beta ']);
      expect(updates.at(-2)).toMatchObject({ type: 'error', code: 'RAF_STREAM' });
      expect(updates.at(-2)).toMatchObject({
        message: expect.stringMatching(/the stream broke after \d+ bytes/),
      });
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'other' });
    });

    it('surfaces a malformed SSE line as an error update, never a silent truncation', async () => {
      const { client } = await setup([{ text: 'alpha beta gamma', malformedAfterChunks: protocol.lead + 1 }]);
      const updates = await drain(client.run([userMessage('x')]));
      expect(updates.slice(-2)).toEqual([
        {
          type: 'error',
          code: 'RAF_STREAM',
          message: expect.stringContaining(protocol.malformedText),
        },
        { type: 'finish', reason: 'other' },
      ]);
    });

    it('reports a stream that ends before the model finished', async () => {
      const { client } = await setup([{ rawBody: protocol.cutBody }]);
      const updates = await drain(client.run([userMessage('x')]));
      expect(updates).toEqual([
        ...protocol.cutUpdates,
        { type: 'error', code: 'RAF_STREAM', message: expect.stringContaining(protocol.cutText) },
        { type: 'finish', reason: 'other' },
      ]);
    });

    it('never hands a half-received tool call to the caller', async () => {
      const { client } = await setup([
        {
          toolCalls: [{ id: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } }],
          dropAfterChunks: protocol.lead + 2,
          chunkDelayMs: 20,
        },
      ]);
      const updates = await drain(client.run([userMessage('x')]));
      expect(updates.some((u) => u.type === 'tool-call-args')).toBe(true);
      expect(updates.some((u) => u.type === 'tool-call-end')).toBe(false);
      expect(updates.at(-2)?.type).toBe('error');
    });

    it('surfaces a provider error sent inside the stream', async () => {
      const { client } = await setup([{ rawBody: protocol.providerErrorBody }]);
      const updates = await drain(client.run([userMessage('x')]));
      expect(updates).toEqual([
        {
          type: 'error',
          code: 'RAF_CHAT_CLIENT',
          message: expect.stringContaining(protocol.providerErrorText),
        },
        { type: 'finish', reason: 'other' },
      ]);
    });

    it('ends a stall past the idle timeout with a timeout error update', async () => {
      const { server, client } = await setup(
        [{ text: 'one two three', stallAfterChunks: protocol.lead + 1 }],
        {
          timeouts: { idleMs: 150 },
        },
      );
      const started = performance.now();
      const updates = await drain(client.run([userMessage('x')]));
      expect(performance.now() - started).toBeLessThan(2000);
      expect(updates.filter((u) => u.type === 'text-delta')).toEqual([{ type: 'text-delta', delta: 'one ' }]);
      expect(updates.slice(-2)).toEqual([
        {
          type: 'error',
          code: 'RAF_TIMEOUT',
          message: expect.stringContaining('no data within 150 ms (idle timeout)'),
        },
        { type: 'finish', reason: 'other' },
      ]);
      await new Promise((r) => setTimeout(r, 50));
      expect(server.requests[0]?.closedEarly).toBe(true);
    });

    it('ends a call that exceeds the total timeout', async () => {
      const { client } = await setup([{ text: 'a b c d e f g h', chunkDelayMs: 60 }], {
        timeouts: { totalMs: 200 },
      });
      const updates = await drain(client.run([userMessage('x')]));
      expect(updates.at(-2)).toMatchObject({
        type: 'error',
        code: 'RAF_TIMEOUT',
        message: expect.stringContaining('(total timeout)'),
      });
    });
  });

  describe('cancellation', () => {
    it('aborting during the request cancels the HTTP call at once', async () => {
      const { server, client } = await setup([{ text: 'slow', delayMs: 5000 }]);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = performance.now();
      const error = await thrown(() => drain(client.run([userMessage('x')], { signal: controller.signal })));
      expect(CancelledError.isInstance(error)).toBe(true);
      expect(performance.now() - started).toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 50));
      expect(server.requests[0]?.closedEarly).toBe(true);
      expect(server.requests).toHaveLength(1);
    });

    it('aborting during a backoff sleep stops at once and does not retry', async () => {
      const { server, client } = await setup([{ status: 429, headers: { 'retry-after': '30' } }, ok]);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 150);
      const started = performance.now();
      const error = await thrown(() => drain(client.run([userMessage('x')], { signal: controller.signal })));
      expect(CancelledError.isInstance(error)).toBe(true);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(server.requests).toHaveLength(1);
    });

    it('aborting mid-stream throws CancelledError after the updates already received', async () => {
      const { client } = await setup([{ text: 'a b c d e f', chunkDelayMs: 30 }]);
      const controller = new AbortController();
      const seen: string[] = [];
      const error = await thrown(async () => {
        for await (const update of client.run([userMessage('x')], { signal: controller.signal })) {
          seen.push(update.type);
          if (update.type === 'text-delta') controller.abort();
        }
      });
      expect(CancelledError.isInstance(error)).toBe(true);
      expect(seen).toContain('text-delta');
    });

    it('an already aborted signal never sends a request', async () => {
      const { server, client } = await setup([ok]);
      const error = await thrown(() =>
        drain(client.run([userMessage('x')], { signal: AbortSignal.abort() })),
      );
      expect(CancelledError.isInstance(error)).toBe(true);
      expect(server.requests).toHaveLength(0);
    });
  });
});
