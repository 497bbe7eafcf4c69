import { readFileSync } from 'node:fs';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ScriptedChatClient } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder } from '@raf/framework';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventLog, REPO_ROOT } from '../test-support/servers.js';
import { serveAgentOverHttp } from './serve-agent.js';

const SERVED = new URL('../test-support/served-agent.ts', import.meta.url).pathname;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Approves the transfer of 5, refuses the one of 500 (what the user would answer). */
const answer = (message: string): { action: 'accept'; content: Record<string, string | boolean> } =>
  message.includes('500')
    ? { action: 'accept', content: { approve: false, reason: 'too much' } }
    : { action: 'accept', content: { approve: true } };

function teller(sent: string[]) {
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
  const model = new ScriptedChatClient([
    { toolCalls: [{ id: 'call_t', name: 'transfer', arguments: { amount: 5 } }] },
    { text: 'Sent 5.' },
    { toolCalls: [{ id: 'call_u', name: 'transfer', arguments: { amount: 500 } }] },
    { text: 'Not sent.' },
    { text: 'Hello from 2025.' },
  ]);
  return new AgentBuilder('teller').chatClient(model).description('A bank teller').withTool(transfer).build();
}

/** A v2 client that negotiates (`auto`) and answers the approval forms. */
function modernClient(asked: string[]) {
  const client = new ModernClient(
    { name: 'v2-client', version: '2.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const message = (request.params as { message: string }).message;
    asked.push(message);
    return answer(message);
  });
  return client;
}

function legacyClient(asked: string[]) {
  const client = new Client({ name: 'v1-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return answer(request.params.message);
  });
  return client;
}

const structured = (result: unknown) => (result as { structuredContent?: unknown }).structuredContent;

describe('raf mcp serve speaks 2026-07-28 and 2025-11-25', { timeout: 60_000 }, () => {
  it('over HTTP: a v2 client (2026-07-28, approvals by input_required) and a v1 client, behind the token', async () => {
    const sent: string[] = [];
    const server = await serveAgentOverHttp(teller(sent));
    closers.push(() => server.close());
    const headers = { authorization: `Bearer ${server.token}` };
    const { StreamableHTTPClientTransport: ModernHttp } = await import('@modelcontextprotocol/client');

    // Without the token the v2 client is refused too.
    const intruder = modernClient([]);
    await expect(intruder.connect(new ModernHttp(new URL(server.url)))).rejects.toThrow(
      /401|token|Unauthorized/i,
    );

    const asked: string[] = [];
    const modern = modernClient(asked);
    await modern.connect(new ModernHttp(new URL(server.url), { requestInit: { headers } }));
    closers.push(() => modern.close());
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await modern.listTools()).tools.map((t) => t.name)).toEqual(['teller']);
    const approved = await modern.callTool({ name: 'teller', arguments: { input: 'send 5' } });
    expect(structured(approved)).toMatchObject({ finishReason: 'stop', text: 'Sent 5.' });
    const denied = await modern.callTool({ name: 'teller', arguments: { input: 'send 500' } });
    expect(structured(denied)).toMatchObject({ text: 'Not sent.' });
    expect(asked).toEqual([
      'The agent teller wants to run transfer {"amount":5}. Approve?',
      'The agent teller wants to run transfer {"amount":500}. Approve?',
    ]);
    expect(sent).toEqual(['transfer 5']);

    const legacy = legacyClient([]);
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }),
    );
    closers.push(() => legacy.close());
    expect(legacy.getServerVersion()?.name).toBe('teller');
    const old = await legacy.callTool({ name: 'teller', arguments: { input: 'hi' } });
    expect(structured(old)).toMatchObject({ text: 'Hello from 2025.' });
  });

  it('a forged requestState is refused: the paused run is not resumed', async () => {
    const sent: string[] = [];
    const server = await serveAgentOverHttp(teller(sent));
    closers.push(() => server.close());
    const { StreamableHTTPClientTransport: ModernHttp } = await import('@modelcontextprotocol/client');
    const modern = new ModernClient(
      { name: 'v2-client', version: '2.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    // Answers "approve" but swaps in a state of its own making.
    await modern.connect(
      new ModernHttp(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${server.token}` } },
      }),
    );
    closers.push(() => modern.close());
    const forged = await modern
      .request({
        method: 'tools/call',
        params: {
          name: 'teller',
          arguments: { input: 'send 5' },
          requestState: 'forged',
          inputResponses: { approve_0: { action: 'accept', content: { approve: true } } },
        },
      } as never)
      .then(
        () => 'answered',
        (error: Error) => error.message,
      );
    expect(forged).toMatch(/Invalid or expired requestState|invalid_request_state/);
    expect(sent).toEqual([]);
  });

  it('a replayed requestState answers only the approvals it was minted for, never a later batch', async () => {
    const sent: string[] = [];
    const server = await serveAgentOverHttp(teller(sent));
    closers.push(() => server.close());
    const { StreamableHTTPClientTransport: ModernHttp } = await import('@modelcontextprotocol/client');
    const modern = new ModernClient(
      { name: 'v2-client', version: '2.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    await modern.connect(
      new ModernHttp(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${server.token}` } },
      }),
    );
    closers.push(() => modern.close());
    type Answer = { resultType?: string; requestState?: string; structuredContent?: { sessionId: string } };
    const call = (args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      (modern.request as (...a: unknown[]) => Promise<Answer>)(
        { method: 'tools/call', params: { name: 'teller', arguments: args, ...extra } },
        { allowInputRequired: true },
      );
    const yes = { inputResponses: { approve_0: { action: 'accept', content: { approve: true } } } };
    // The transfer of 5 is asked and approved (the state S1 names the session).
    const first = await call({ input: 'send 5' });
    expect(first.requestState).toEqual(expect.any(String));
    const done = await call({ input: 'send 5' }, { requestState: first.requestState, ...yes });
    const sessionId = done.structuredContent!.sessionId;
    expect(sent).toEqual(['transfer 5']);
    // The same session now waits on the transfer of 500 (its own state, never answered).
    const second = await call({ input: 'send 500', session: sessionId });
    expect(second.requestState).toEqual(expect.any(String));
    // S1 again, with its "approve": it was for the transfer of 5, not this one.
    const replayed = await call({ input: 'send 5' }, { requestState: first.requestState, ...yes }).then(
      (answer) => JSON.stringify(answer),
      (error: Error) => error.message,
    );
    expect(replayed).toMatch(/stale|not the approvals/);
    expect(sent).toEqual(['transfer 5']);
  });

  for (const kind of ['v2', 'v1'] as const)
    it(`over stdio: a ${kind} client runs the agent; approvals hold`, async () => {
      const log = eventLog();
      const params = {
        command: process.execPath,
        args: ['--import', 'tsx', SERVED],
        cwd: REPO_ROOT,
        env: { ...(process.env as Record<string, string>), SERVED_LOG: log },
        stderr: 'pipe' as const,
      };
      const asked: string[] = [];
      const client = kind === 'v2' ? modernClient(asked) : legacyClient(asked);
      await client.connect(
        (kind === 'v2' ? new ModernStdio(params) : new StdioClientTransport(params)) as never,
      );
      closers.push(() => client.close());
      const negotiated = (
        client as { getNegotiatedProtocolVersion?: () => string | undefined }
      ).getNegotiatedProtocolVersion?.();
      if (kind === 'v2') expect(negotiated).toBe('2026-07-28');
      const approved = await client.callTool({ name: 'teller', arguments: { input: 'send 5' } });
      expect(structured(approved)).toMatchObject({ finishReason: 'stop', text: 'Sent 5.' });
      const denied = await client.callTool({ name: 'teller', arguments: { input: 'send 500' } });
      expect(structured(denied)).toMatchObject({ text: 'Not sent.' });
      expect(asked).toHaveLength(2);
      expect(readFileSync(log, 'utf8')).toBe('transfer 5\n');
    });
});
