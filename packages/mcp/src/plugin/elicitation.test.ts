import type { InputRequestUpdate } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, type TestAgent } from '../test-support/agents.js';
import { eventLog, readEvents, startHttpTestServer, stdioTestServer } from '../test-support/servers.js';

const agents: TestAgent[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
  for (const stop of stops.splice(0)) await stop();
});

const askCall = { toolCalls: [{ id: 'call_ask', name: 'ask_name', arguments: {} }] };

async function agentOn(config: Record<string, unknown>, script: Parameters<typeof buildTestAgent>[1]) {
  const test = await buildTestAgent({ tools: [{ kind: 'mcp', name: 'people', config }] }, script);
  agents.push(test);
  return test;
}

// Real server processes (the official SDK's elicitInput) on a shared machine: generous time.
describe('elicitation (SPEC §14.4)', { timeout: 60_000 }, () => {
  it('a form question reaches onInputRequest as an input-request update; the answer reaches the server (stdio)', async () => {
    const events = eventLog();
    const { agent } = await agentOn(stdioTestServer({ TEST_SERVER_LOG: events }), [askCall, { text: 'ok' }]);
    const asked: InputRequestUpdate[] = [];
    const updates = await collect(agent, 'who am I', {
      onInputRequest: async (request) => {
        asked.push(request);
        return { action: 'accept', content: { name: 'Ada', age: 36 } };
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      type: 'input-request',
      callId: 'call_ask',
      source: 'mcp:people',
      message: 'What is your name?',
      mode: 'form',
      schema: { type: 'object', required: ['name'] },
    });
    // The question is in the stream, before the call's result.
    const types = updates.map((u) => u.type);
    expect(types.indexOf('input-request')).toBeGreaterThan(-1);
    expect(types.indexOf('input-request')).toBeLessThan(types.indexOf('tool-called'));
    expect(readEvents(events).find((e) => e.event === 'elicited')?.result).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 36 },
    });
  });

  it('an answer that does not fit the schema is declined with a warning, never sent (streamable HTTP)', async () => {
    const events = eventLog();
    const server = await startHttpTestServer({ env: { TEST_SERVER_LOG: events } });
    stops.push(server.stop);
    const { agent } = await agentOn({ url: server.url }, [askCall, { text: 'ok' }]);
    const updates = await collect(agent, 'who am I', {
      onInputRequest: async () => ({ action: 'accept', content: { name: '', age: 'old' } }),
    });
    const warning = updates.find((u) => u.type === 'warning');
    expect(warning).toMatchObject({ type: 'warning' });
    expect((warning as { message: string }).message).toMatch(
      /mcp:people asked "What is your name\?": declined, the answer does not fit/,
    );
    expect(readEvents(events).find((e) => e.event === 'elicited')?.result).toEqual({ action: 'decline' });
  });

  it('without anyone to answer, the question is declined with a warning and the run goes on', async () => {
    const events = eventLog();
    const { agent } = await agentOn(stdioTestServer({ TEST_SERVER_LOG: events }), [askCall, { text: 'ok' }]);
    const updates = await collect(agent, 'who am I');
    expect(updates.find((u) => u.type === 'input-request')).toMatchObject({ source: 'mcp:people' });
    expect(updates.find((u) => u.type === 'warning')).toMatchObject({
      message: expect.stringContaining('declined, nobody can answer in this run'),
    });
    expect(updates.find((u) => u.type === 'tool-called')).toMatchObject({ result: { ok: true } });
    expect(updates.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(readEvents(events).find((e) => e.event === 'elicited')?.result).toEqual({ action: 'decline' });
  });

  it('a URL question carries the URL and only consent goes back', async () => {
    const events = eventLog();
    const { agent } = await agentOn(stdioTestServer({ TEST_SERVER_LOG: events }), [
      {
        toolCalls: [{ id: 'call_url', name: 'open_link', arguments: { url: 'https://auth.example.com/x' } }],
      },
      { text: 'ok' },
    ]);
    const asked: InputRequestUpdate[] = [];
    await collect(agent, 'sign in', {
      onInputRequest: async (request) => {
        asked.push(request);
        return { action: 'accept' };
      },
    });
    expect(asked[0]).toMatchObject({ mode: 'url', url: 'https://auth.example.com/x', source: 'mcp:people' });
    expect(asked[0]?.schema).toBeUndefined();
    expect(readEvents(events).find((e) => e.event === 'elicited')?.result).toEqual({ action: 'accept' });
  });
});
