import { OpenAICompatibleChatClient } from '@raf/client';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder } from '@raf/framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Served, serve, TOKEN_A } from '../test-support/served-fixture.js';

// `/mcp` on 2026-07-28: a paused call's sealed state answers the approvals it was minted for,
// once. The model picks the call ids, so a later batch of the same run may reuse one: a state
// replayed then (a client or proxy that retries a request) must not approve what the user was
// never shown.
let model: MockModelServer;
let client: OpenAICompatibleChatClient;
let served: Served;
const sent: string[] = [];

beforeAll(async () => {
  model = await startMockModelServer({
    recordRequests: false,
    turns: (request) => {
      const messages = (request.body?.messages ?? []) as { role: string }[];
      const results = messages.filter((m) => m.role === 'tool').length;
      if (results === 0) return { toolCalls: [{ id: 'g1', name: 'transfer', arguments: { amount: 5 } }] };
      if (results === 1) return { toolCalls: [{ id: 'g1', name: 'transfer', arguments: { amount: 500 } }] };
      return { text: 'done' };
    },
  });
  client = new OpenAICompatibleChatClient({ model: 'mock', baseURL: model.baseURL, maxRetries: 0 });
  const transfer = defineTool({
    name: 'transfer',
    description: 'Moves money',
    parameters: z.object({ amount: z.number() }),
    requiresApproval: true,
    execute: ({ amount }) => {
      sent.push(`transfer ${amount}`);
      return toolSuccess({ sent: amount });
    },
  });
  const teller = new AgentBuilder('teller').chatClient(client).withTools([transfer]).build();
  served = await serve({ agents: [{ name: 'teller', agent: async () => teller }] } as never);
});
afterAll(async () => {
  await served?.close();
  await client?.close();
  await model?.close();
});

describe('/mcp 2026-07-28: a replayed requestState', { timeout: 60_000 }, () => {
  it('answers only the pause it was minted for, never a later batch with a reused call id', async () => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const modern = new Client(
      { name: 'v2-client', version: '2.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN_A}` } },
      }),
    );
    try {
      type Answer = { resultType?: string; requestState?: string; content?: { text?: string }[] };
      const call = (extra: Record<string, unknown> = {}) =>
        (modern.request as (...a: unknown[]) => Promise<Answer>)(
          { method: 'tools/call', params: { name: 'teller', arguments: { input: 'pay' }, ...extra } },
          { allowInputRequired: true },
        );
      const yes = { inputResponses: { approve_0: { action: 'accept', content: { approve: true } } } };
      const first = await call();
      expect(first.resultType).toBe('input_required');
      // Approved: 5 is sent, and the run pauses again on the transfer of 500 (call id g1 again).
      const second = await call({ requestState: first.requestState, ...yes });
      expect(second.resultType).toBe('input_required');
      expect(sent).toEqual(['transfer 5']);
      // The first state again, with its "approve": it was for 5, not for 500.
      const replayed = await call({ requestState: first.requestState, ...yes });
      expect(JSON.stringify(replayed)).toMatch(/stale/);
      expect(sent).toEqual(['transfer 5']);
      // The state of this pause still answers it.
      const last = await call({
        requestState: second.requestState,
        inputResponses: { approve_0: { action: 'accept', content: { approve: false } } },
      });
      expect(last.resultType).not.toBe('input_required');
      expect(sent).toEqual(['transfer 5']);
    } finally {
      await modern.close();
    }
  });
});
