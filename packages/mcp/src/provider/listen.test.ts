import { afterEach, describe, expect, it } from 'vitest';
import { mcpPlugin } from '../plugin/mcp-plugin.js';
import { buildTestAgent, collect, type TestAgent } from '../test-support/agents.js';
import { type ModernServer, startModernServer } from '../test-support/modern-server.js';
import { eventually, stdioModernServer } from '../test-support/servers.js';

const agents: TestAgent[] = [];
let server: ModernServer | undefined;
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
  await server?.close();
  server = undefined;
});

/** What the model was sent on its n-th request (its instructions included). */
const request = (test: TestAgent, n: number) => JSON.stringify(test.client.calls[n]);

describe('subscriptions/listen: a 2026-07-28 server pushes resource changes', { timeout: 60_000 }, () => {
  it('the resource is read once, not on every run; a change reaches the next model request', async () => {
    server = await startModernServer();
    const lines: string[] = [];
    const test = await buildTestAgent(
      { contexts: [{ kind: 'mcp', name: 'notes', config: { url: server.url, subscribe: ['test://note'] } }] },
      [{ text: 'one' }, { text: 'two' }, { text: 'three' }],
      mcpPlugin({ log: (line) => lines.push(line) }),
    );
    agents.push(test);
    await collect(test.agent, 'first');
    expect(request(test, 0)).toContain(
      'The resource test://note of the MCP server \\"notes\\", as it is now:\\nnote: first',
    );
    expect(lines.join('\n')).toMatch(/\[mcp notes\] listening \(subscriptions\/listen\) to 1 resource/);
    expect(server.state.reads).toBe(1);

    // Nothing changed: the stream is open, so the resource is not read again.
    await collect(test.agent, 'second');
    expect(server.state.reads).toBe(1);
    expect(request(test, 1)).toContain('note: first');

    server.setNote('second');
    await eventually(
      () => lines.some((line) => line.includes('resource updated: test://note')),
      20_000,
      'the change on the listen stream',
    );
    await collect(test.agent, 'third');
    expect(request(test, 2)).toContain('note: second');
    expect(request(test, 2)).not.toContain('note: first');
    expect(server.state.reads).toBe(2);
  });

  it('a listen stream that ended: what changed meanwhile is read on the next run, and it listens again', async () => {
    server = await startModernServer();
    const lines: string[] = [];
    const test = await buildTestAgent(
      { contexts: [{ kind: 'mcp', name: 'notes', config: { url: server.url, subscribe: ['test://note'] } }] },
      [{ text: 'one' }, { text: 'two' }],
      mcpPlugin({ log: (line) => lines.push(line) }),
    );
    agents.push(test);
    await collect(test.agent, 'first');
    expect(server.state.reads).toBe(1);
    server.dropConnections();
    await eventually(
      () => lines.some((line) => line.includes('subscriptions/listen ended')),
      20_000,
      'the end of the listen stream',
    );
    // Changed while nobody listened: no notification ever comes for it.
    server.state.note = 'changed unseen';
    await collect(test.agent, 'second');
    expect(request(test, 1)).toContain('note: changed unseen');
    expect(server.state.reads).toBe(2);
    expect(lines.filter((line) => line.includes('listening (subscriptions/listen)'))).toHaveLength(2);
  });

  it('over stdio too: the change comes on the listen stream, and the next request has it', async () => {
    const lines: string[] = [];
    const test = await buildTestAgent(
      {
        contexts: [
          {
            kind: 'mcp',
            name: 'notes',
            config: { ...stdioModernServer({ MODERN_NOTE_TICKS: '200' }), subscribe: ['test://note'] },
          },
        ],
      },
      [{ text: 'one' }, { text: 'two' }],
      mcpPlugin({ log: (line) => lines.push(line) }),
    );
    agents.push(test);
    await collect(test.agent, 'first');
    expect(lines.join('\n')).toMatch(/\[mcp notes\] listening \(subscriptions\/listen\) to 1 resource/);
    const seen = lines.filter((line) => line.includes('resource updated: test://note')).length;
    await eventually(
      () => lines.filter((line) => line.includes('resource updated: test://note')).length > seen,
      20_000,
      'a change on the listen stream',
    );
    await collect(test.agent, 'second');
    expect(request(test, 1)).toMatch(/note: tick \d+/);
  });
});
