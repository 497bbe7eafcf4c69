import { request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ScriptedChatClient, type ScriptedResponse } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder } from '@raf/framework';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type HttpAgentServer, serveAgentOverHttp } from './serve-agent.js';

const HAS_IPV6 = await ipv6Loopback();

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function agentWith(script: ScriptedResponse[], sent: string[] = []) {
  const client = new ScriptedChatClient(script);
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
  const agent = new AgentBuilder('teller')
    .chatClient(client)
    .description('A bank teller')
    .withTool(transfer)
    .build();
  return { agent, client };
}

async function serve(agent: ReturnType<typeof agentWith>['agent'], options = {}): Promise<HttpAgentServer> {
  const server = await serveAgentOverHttp(agent, options);
  closers.push(() => server.close());
  return server;
}

async function connect(
  server: HttpAgentServer,
  answer?: (message: string) => { action: 'accept' | 'decline'; content?: Record<string, unknown> },
) {
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: answer ? { elicitation: {} } : {} },
  );
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer(request.params.message);
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${server.token}` } },
    }),
  );
  closers.push(() => client.close());
  return { client, asked };
}

describe('an agent served over MCP (streamable HTTP), driven by the SDK client', () => {
  it('offers one tool that runs the agent; a session id continues the conversation', async () => {
    const { agent, client: model } = agentWith([{ text: 'Hello, Ada.' }, { text: 'You are Ada.' }]);
    const server = await serve(agent);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client } = await connect(server);
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.description])).toEqual([['teller', 'A bank teller']]);
    const first = await client.callTool({ name: 'teller', arguments: { input: 'I am Ada' } });
    expect(first.content).toEqual([{ type: 'text', text: 'Hello, Ada.' }]);
    const { sessionId } = first.structuredContent as { sessionId: string };
    expect(first.structuredContent).toEqual({ sessionId, finishReason: 'stop', text: 'Hello, Ada.' });
    const second = await client.callTool({
      name: 'teller',
      arguments: { input: 'Who am I?', session: sessionId },
    });
    expect(second.structuredContent).toMatchObject({ sessionId, text: 'You are Ada.' });
    expect(model.calls[1]!.messages.map((m) => m.content)).toEqual(['I am Ada', 'Hello, Ada.', 'Who am I?']);
    expect(
      await client.callTool({ name: 'teller', arguments: { input: 'x', session: 'nope' } }),
    ).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: "unknown session 'nope' (sessions live as long as this server)" }],
    });
  });

  it('asks for approvals through MCP elicitation when the client supports it', async () => {
    const sent: string[] = [];
    const { agent } = agentWith(
      [
        { toolCalls: [{ id: 'call_t', name: 'transfer', arguments: { amount: 5 } }] },
        { text: 'Sent 5.' },
        { toolCalls: [{ id: 'call_u', name: 'transfer', arguments: { amount: 500 } }] },
        { text: 'Not sent.' },
      ],
      sent,
    );
    const server = await serve(agent);
    const { client, asked } = await connect(server, (message) =>
      message.includes('500')
        ? { action: 'accept', content: { approve: false, reason: 'too much' } }
        : { action: 'accept', content: { approve: true } },
    );
    const approved = await client.callTool({ name: 'teller', arguments: { input: 'send 5' } });
    expect(approved.structuredContent).toMatchObject({ finishReason: 'stop', text: 'Sent 5.' });
    const denied = await client.callTool({ name: 'teller', arguments: { input: 'send 500' } });
    expect(denied.structuredContent).toMatchObject({ text: 'Not sent.' });
    expect(asked).toEqual([
      'The agent teller wants to run transfer {"amount":5}. Approve?',
      'The agent teller wants to run transfer {"amount":500}. Approve?',
    ]);
    expect(sent).toEqual(['transfer 5']);
  });

  it('without elicitation, says approval is needed (and nothing runs)', async () => {
    const sent: string[] = [];
    const { agent } = agentWith(
      [{ toolCalls: [{ id: 'call_t', name: 'transfer', arguments: { amount: 5 } }] }],
      sent,
    );
    const server = await serve(agent);
    const { client } = await connect(server);
    const result = await client.callTool({ name: 'teller', arguments: { input: 'send 5' } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(
      /^approval needed: the agent wants to run transfer \{"amount":5\}\. This MCP client cannot be asked \(it does not support elicitation\); the run is paused\. \(session [\w-]+\)$/,
    );
    expect(sent).toEqual([]);
  });

  it('refuses requests for other hosts (DNS rebinding) and unknown sessions', async () => {
    const { agent } = agentWith([]);
    const server = await serve(agent);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    // node:http, not fetch: fetch does not let a caller set Host.
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(server.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
        });
        request.once('response', (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.once('error', reject);
        request.end(JSON.stringify(init));
      });
    const bearer = { authorization: `Bearer ${server.token}` };
    expect(await post({ ...bearer, host: 'evil.example' })).toBe(403);
    expect(await post({ ...bearer, 'mcp-session-id': 'gone' })).toBe(404);
    expect(await post(bearer)).toBe(200);
    // Issue 26: any local process reached the agent. No token, a wrong one: 401.
    expect(await post({})).toBe(401);
    expect(await post({ authorization: 'Bearer not-the-token' })).toBe(401);
    expect(await post({ authorization: server.token })).toBe(401);
    // A web page (another origin) with the token still gets 403; the server's own origin passes.
    expect(await post({ ...bearer, origin: 'http://evil.example' })).toBe(403);
    expect(await post({ ...bearer, origin: 'null' })).toBe(403);
    expect(await post({ ...bearer, origin: new URL(server.url).origin })).toBe(200);
  });

  it('a client without the token can neither run the agent nor answer its approval: the gated tool does not run', async () => {
    const sent: string[] = [];
    const { agent } = agentWith(
      [{ toolCalls: [{ id: 'call_t', name: 'transfer', arguments: { amount: 5 } }] }, { text: 'Sent.' }],
      sent,
    );
    const server = await serve(agent);
    const intruder = new Client(
      { name: 'intruder', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    intruder.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { approve: true },
    }));
    await expect(intruder.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow(
      /401|token/,
    );
    const wrong = new Client({ name: 'intruder', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await expect(
      wrong.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: `Bearer ${'x'.repeat(server.token.length)}` } },
        }),
      ),
    ).rejects.toThrow(/401|token/);
    expect(sent).toEqual([]);
    // Each server has its own random token.
    const other = await serve(agentWith([]).agent);
    expect(other.token).not.toBe(server.token);
    expect(server.token.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses a host other machines can reach unless told to expose the agent', async () => {
    const { agent } = agentWith([]);
    await expect(serveAgentOverHttp(agent, { host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /other machines.*exposeToNetwork/,
    );
    await expect(serveAgentOverHttp(agent, { host: '::', port: 0 })).rejects.toThrow(/exposeToNetwork/);
    const exposed = await serve(agent, { host: '0.0.0.0', port: 0, exposeToNetwork: true });
    // Exposed, the token still guards every request.
    const status = await fetch(exposed.url.replace('0.0.0.0', '127.0.0.1'), { method: 'POST' }).then(
      (r) => r.status,
    );
    expect(status).toBe(401);
  });

  it('a wrong method on /mcp is 405 with the methods it takes', async () => {
    const server = await serve(agentWith([]).agent);
    const res = await fetch(server.url, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.token}` },
      body: '{}',
    });
    expect([res.status, res.headers.get('allow')]).toEqual([405, 'GET, POST, DELETE']);
  });

  it.runIf(HAS_IPV6)(
    'listens on a bracketed IPv6 loopback host ([::1]) and takes requests there',
    async () => {
      const server = await serve(agentWith([]).agent, { host: '[::1]', port: 0 });
      expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+\/mcp$/);
      const res = await fetch(server.url, { method: 'POST' });
      expect(res.status).toBe(401);
    },
  );
});

/** Whether this machine can listen on IPv6 loopback (some containers have no ::1). */
function ipv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
}
