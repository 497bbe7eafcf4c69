import { afterEach, describe, expect, it } from 'vitest';
import { type MockModelServer, startMockAnthropicServer, startMockModelServer } from './mock-server.js';

let server: MockModelServer;
afterEach(async () => server?.close());

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
  return { status: response.status, text: await response.text() };
}

describe('mock model server', () => {
  it('answers an exhausted script with a 500 that says so', async () => {
    server = await startMockModelServer({ turns: [] });
    const response = await post('/v1/chat/completions', { model: 'm', messages: [] });
    expect(response.status).toBe(500);
    expect(JSON.parse(response.text).error.message).toBe(
      'mock model server: script exhausted: 0 turn(s) scripted, request #1 has no answer',
    );
  });

  it('rejects unknown routes and non-JSON bodies, and lists its model', async () => {
    server = await startMockModelServer({ turns: [{ text: 'x' }], model: 'tiny' });
    expect((await post('/v1/embeddings', {})).status).toBe(404);
    const bad = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{' });
    expect(bad.status).toBe(400);
    const models = (await (await fetch(`${server.baseURL}/models`)).json()) as { data: { id: string }[] };
    expect(models.data[0]?.id).toBe('tiny');
  });

  it('streams SSE ending in [DONE] and records the request', async () => {
    server = await startMockModelServer({ turns: [{ text: 'hi' }] });
    server.enqueue({ text: 'second' });
    const response = await post('/v1/chat/completions', {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(response.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(
      response.text
        .split('\n\n')
        .filter(Boolean)
        .every((event) => event.startsWith('data: ')),
    ).toBe(true);
    expect(server.requests[0]?.body?.messages).toEqual([{ role: 'user', content: 'q' }]);
    expect(server.served).toBe(1);
  });

  it('serves every request from a function script', async () => {
    server = await startMockModelServer({
      turns: (_request, index) => ({ text: `answer ${index}` }),
      recordRequests: false,
    });
    const first = await post('/v1/chat/completions', { model: 'm', messages: [] });
    const second = await post('/v1/chat/completions', { model: 'm', messages: [] });
    expect(JSON.parse(first.text).choices[0].message.content).toBe('answer 0');
    expect(JSON.parse(second.text).choices[0].message.content).toBe('answer 1');
    expect(server.requests).toHaveLength(0);
  });
});

describe('mock Anthropic server', () => {
  const version = { 'anthropic-version': '2023-06-01' };
  const ask = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'q' }] };

  it('answers errors in the Anthropic shape, typed by status', async () => {
    server = await startMockAnthropicServer({ turns: [{ status: 529 }] });
    expect(await post('/v1/messages', ask, version)).toEqual({
      status: 529,
      text: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'mock error 529' } }),
    });
    const exhausted = await post('/v1/messages', ask, version);
    expect(exhausted.status).toBe(500);
    expect(JSON.parse(exhausted.text).error).toEqual({
      type: 'script_exhausted',
      message: 'mock model server: script exhausted: 1 turn(s) scripted, request #2 has no answer',
    });
  });

  it.each([
    ['no anthropic-version header', ask, {}, 'anthropic-version: header is required'],
    ['no max_tokens', { ...ask, max_tokens: undefined }, version, 'max_tokens: Field required'],
    [
      'a system message',
      { ...ask, messages: [{ role: 'system', content: 's' }, ...ask.messages] },
      version,
      `messages.0.role: Input should be 'user' or 'assistant' (a system prompt goes in the top-level "system")`,
    ],
    [
      'a tool_result that answers no tool_use',
      {
        ...ask,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: '' }] }],
      },
      version,
      'messages.0: unexpected tool_use_id "x" in a tool_result block: each tool_result must answer a tool_use block of the previous message',
    ],
  ])('refuses, as the real API does, a request with %s', async (_label, body, headers, message) => {
    server = await startMockAnthropicServer({ turns: [{ text: 'never' }] });
    const response = await post('/v1/messages', body, headers);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message },
    });
    expect(server.served).toBe(0);
  });

  it('streams named events ending in message_stop, and lists its model', async () => {
    server = await startMockAnthropicServer({ turns: [{ text: 'hi' }], model: 'claude-mock' });
    const response = await post('/v1/messages', { ...ask, stream: true }, version);
    const events = response.text.split('\n\n').filter(Boolean);
    expect(events.map((event) => event.split('\n')[0])).toEqual([
      'event: message_start',
      'event: ping',
      'event: content_block_start',
      'event: content_block_delta',
      'event: content_block_stop',
      'event: message_delta',
      'event: message_stop',
    ]);
    const models = (await (await fetch(`${server.baseURL}/models`)).json()) as { data: { id: string }[] };
    expect(models.data[0]?.id).toBe('claude-mock');
  });
});
