import { ChatClientError, userMessage } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicChatClient } from '../anthropic/anthropic-client.js';
import { OpenAICompatibleChatClient } from '../openai-compatible/openai-compatible-client.js';
import {
  type MockModelServer,
  startMockAnthropicServer,
  startMockModelServer,
} from '../testing/mock-server.js';
import { drain, thrown } from '../testing/test-helpers.js';
import { FallbackChatClient } from './fallback-chat-client.js';

const servers: MockModelServer[] = [];
const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const retry = { initialDelayMs: 5, maxDelayMs: 10 };
async function openai(turns: Parameters<typeof startMockModelServer>[0]) {
  const server = await startMockModelServer(turns);
  servers.push(server);
  const client = new OpenAICompatibleChatClient({
    provider: 'openai',
    model: 'primary',
    baseURL: server.baseURL,
    apiKey: 'k',
    retry,
  });
  clients.push(client);
  return { server, client };
}

describe('FallbackChatClient (model.fallback)', () => {
  it('a 500-storm on the first model, past its retries, switches to the next with a warning', async () => {
    const first = await openai({ turns: [{ status: 500 }, { status: 500 }, { status: 500 }] });
    const anthropic = await startMockAnthropicServer({ turns: [{ text: 'from the fallback' }] });
    servers.push(anthropic);
    const second = new AnthropicChatClient({ model: 'backup', baseURL: anthropic.url, apiKey: 'k', retry });
    clients.push(second);
    const updates = await drain(new FallbackChatClient([first.client, second]).run([userMessage('hi')]));
    expect(first.server.requests).toHaveLength(3);
    expect(updates[0]).toEqual({
      type: 'warning',
      code: 'RAF_MODEL_FALLBACK',
      message: expect.stringMatching(
        /^openai\/primary failed \(.*HTTP 500.*\(after 3 attempts\)\); trying anthropic\/backup$/,
      ),
    });
    expect(
      updates
        .filter((u) => u.type === 'text-delta')
        .map((u) => (u as { delta: string }).delta)
        .join(''),
    ).toBe('from the fallback');
    expect(updates.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('a refused request (400) is not retried elsewhere, nor an answer that broke after it began', async () => {
    const bad = await openai({ turns: [{ status: 400 }] });
    const spare = await openai({ turns: [{ text: 'never' }, { text: 'never' }] });
    const error = await thrown(() =>
      drain(new FallbackChatClient([bad.client, spare.client]).run([userMessage('x')])),
    );
    expect(ChatClientError.isInstance(error) && error.status).toBe(400);
    const broken = await openai({
      turns: [{ text: 'alpha beta gamma', dropAfterChunks: 2, chunkDelayMs: 10 }],
    });
    const updates = await drain(
      new FallbackChatClient([broken.client, spare.client]).run([userMessage('x')]),
    );
    expect(updates.at(-2)).toMatchObject({ type: 'error' });
    expect(spare.server.requests).toHaveLength(0);
  });

  it('the last model’s failure is thrown as it came', async () => {
    const a = await openai({ turns: [{ status: 503 }, { status: 503 }, { status: 503 }] });
    const b = await openai({ turns: [{ status: 503 }, { status: 503 }, { status: 503 }] });
    const error = await thrown(() =>
      drain(new FallbackChatClient([a.client, b.client]).run([userMessage('x')])),
    );
    expect(ChatClientError.isInstance(error) && error.status).toBe(503);
    expect(b.server.requests).toHaveLength(3);
  });
});
