import { afterEach, describe, expect, it } from 'vitest';
import { type MockModelServer, startMockModelServer } from './mock-server.js';

let server: MockModelServer;
afterEach(async () => server?.close());

async function post(path: string, body: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
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
