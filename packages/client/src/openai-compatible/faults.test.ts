import { CancelledError, ChatClientError, TimeoutError, userMessage } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type MockModelServer, type MockTurnInput, startMockModelServer } from '../testing/mock-server.js';
import { drain, thrown } from '../testing/test-helpers.js';
import type { OpenAICompatibleClientOptions } from './client-options.js';
import { OpenAICompatibleChatClient } from './openai-compatible-client.js';

let server: MockModelServer | undefined;
let client: OpenAICompatibleChatClient | undefined;
const KEY = 'sk-secret-1234567890';

async function setup(turns: MockTurnInput[], extra: Partial<OpenAICompatibleClientOptions> = {}) {
  server = await startMockModelServer({ turns });
  client = new OpenAICompatibleChatClient({
    provider: 'openai',
    model: 'm1',
    baseURL: server.baseURL,
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
      {
        status: 400,
        errorBody: { error: { message: `Invalid model for key ${KEY}`, type: 'invalid_request_error' } },
      },
    ]);
    const error = await thrown(() => drain(client.run([userMessage('x')])));
    expect(server.requests).toHaveLength(1);
    expect(ChatClientError.isInstance(error)).toBe(true);
    const e = error as ChatClientError;
    expect(e.status).toBe(400);
    expect(e.retryable).toBe(false);
    expect(e.message).toBe(
      `openai: POST ${server.baseURL}/chat/completions failed with HTTP 400: Invalid model for key [redacted]`,
    );
    expect(JSON.stringify({ m: e.message, b: e.responseBody })).not.toContain(KEY);
  });

  it('gives up after maxRetries and says how many attempts were made', async () => {
    const { server, client } = await setup([{ status: 503 }, { status: 503 }, { status: 503 }, ok]);
    const error = (await thrown(() => drain(client.run([userMessage('x')])))) as ChatClientError;
    expect(error.message).toMatch(/HTTP 503: mock error 503 \(after 3 attempts\)$/);
    expect(server.requests).toHaveLength(3);
  });

  it('retries a refused connection and then reports it', async () => {
    const { server, client } = await setup([]);
    const deadURL = server.baseURL;
    await server.close();
    const refused = new OpenAICompatibleChatClient({
      model: 'm',
      baseURL: deadURL,
      maxRetries: 1,
      retry: { initialDelayMs: 5 },
    });
    const error = (await thrown(() => drain(refused.run([userMessage('x')])))) as ChatClientError;
    await refused.close();
    expect(ChatClientError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /custom: POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions failed: .*ECONNREFUSED.*\(after 2 attempts\)/,
    );
    void client;
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
      { text: 'alpha beta gamma delta', dropAfterChunks: 3, chunkDelayMs: 20 },
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
    const { client } = await setup([{ text: 'alpha beta gamma', malformedAfterChunks: 2 }]);
    const updates = await drain(client.run([userMessage('x')]));
    expect(updates.slice(-2)).toEqual([
      {
        type: 'error',
        code: 'RAF_STREAM',
        message: expect.stringContaining('malformed SSE data: {"choices": [ {"delta": oops'),
      },
      { type: 'finish', reason: 'other' },
    ]);
  });

  it('reports a stream that ends without finish_reason or [DONE]', async () => {
    const { client } = await setup([
      { rawBody: 'data: {"id":"x","choices":[{"index":0,"delta":{"content":"cut"}}]}\n\n' },
    ]);
    const updates = await drain(client.run([userMessage('x')]));
    expect(updates).toEqual([
      { type: 'response-metadata', id: 'x' },
      { type: 'text-delta', delta: 'cut' },
      {
        type: 'error',
        code: 'RAF_STREAM',
        message: expect.stringContaining('the stream ended before the model finished'),
      },
      { type: 'finish', reason: 'other' },
    ]);
  });

  it('never hands a half-received tool call to the caller', async () => {
    const { client } = await setup([
      {
        toolCalls: [{ id: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } }],
        dropAfterChunks: 3,
        chunkDelayMs: 20,
      },
    ]);
    const updates = await drain(client.run([userMessage('x')]));
    expect(updates.some((u) => u.type === 'tool-call-end')).toBe(false);
    expect(updates.at(-2)?.type).toBe('error');
  });

  it('surfaces a provider error sent inside the stream', async () => {
    const { client } = await setup([{ rawBody: 'data: {"error":{"message":"overloaded"}}\n\n' }]);
    const updates = await drain(client.run([userMessage('x')]));
    expect(updates).toEqual([
      {
        type: 'error',
        code: 'RAF_CHAT_CLIENT',
        message: expect.stringContaining('provider error: overloaded'),
      },
      { type: 'finish', reason: 'other' },
    ]);
  });

  it('ends a stall past the idle timeout with a timeout error update', async () => {
    const { server, client } = await setup([{ text: 'one two three', stallAfterChunks: 2 }], {
      timeouts: { idleMs: 150 },
    });
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
    const error = await thrown(() => drain(client.run([userMessage('x')], { signal: AbortSignal.abort() })));
    expect(CancelledError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});
