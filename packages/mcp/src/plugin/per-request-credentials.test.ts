import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, type TestAgent } from '../test-support/agents.js';
import {
  eventLog,
  type HttpServerProcess,
  readEvents,
  startHttpTestServer,
} from '../test-support/servers.js';
import { mcpPlugin } from './mcp-plugin.js';

const agents: TestAgent[] = [];
let server: HttpServerProcess | undefined;
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
  await server?.stop();
  server = undefined;
});

const who = (id: string) => ({ toolCalls: [{ id, name: 'whoami', arguments: {} }] });

/** The Authorization header the server saw, from a run's whoami result. */
function seen(updates: Awaited<ReturnType<typeof collect>>): unknown {
  const called = updates.find((u) => u.type === 'tool-called') as {
    result: { ok: boolean; data?: unknown; error?: string };
  };
  if (!called.result.ok) return called.result.error;
  return (JSON.parse(String(called.result.data)) as { authorization: unknown }).authorization;
}

describe('per-request credentials (one process, many users)', { timeout: 60_000 }, () => {
  it('=Context headers: two runs at once with different tokens each reach the server with their own, on their own session', async () => {
    const events = eventLog();
    server = await startHttpTestServer({ env: { TEST_SERVER_LOG: events } });
    const test = await buildTestAgent(
      {
        tools: [
          {
            kind: 'mcp',
            name: 'tracker',
            config: {
              url: server.url,
              headers: { Authorization: 'Bearer =Context.mcpToken', 'X-Team': 'blue' },
            },
          },
        ],
      },
      // Both runs' first model calls come first (each gets a whoami), then their second ones.
      [who('c1'), who('c2'), { text: 'a' }, { text: 'b' }, who('c3'), { text: 'c' }],
    );
    agents.push(test);
    const [alice, bob] = await Promise.all([
      collect(test.agent, 'who', { context: { mcpToken: 'alice-token' } }),
      collect(test.agent, 'who', { context: { mcpToken: 'bob-token' } }),
    ]);
    expect([seen(alice), seen(bob)].sort()).toEqual(['Bearer alice-token', 'Bearer bob-token']);
    // The build's connection (no token) plus one per user: never one session for both.
    expect(readEvents(events).filter((e) => e.event === 'session')).toHaveLength(3);

    // A run without the token fails its call; it never goes out on someone else's connection.
    const none = await collect(test.agent, 'who');
    expect(seen(none)).toMatch(/needs Context\.mcpToken for its Authorization header/);
  });

  it('a requestHeaders callback from code does the same', async () => {
    server = await startHttpTestServer();
    const plugin = mcpPlugin({
      requestHeaders: (name, context) => {
        const user = (context as { user?: string } | undefined)?.user;
        return name === 'tracker' && user ? { Authorization: `Bearer ${user}-from-code` } : undefined;
      },
    });
    const test = await buildTestAgent(
      { tools: [{ kind: 'mcp', name: 'tracker', config: { url: server.url } }] },
      [who('c1'), { text: 'a' }, who('c2'), { text: 'b' }],
      plugin,
    );
    agents.push(test);
    expect(seen(await collect(test.agent, 'who', { context: { user: 'carol' } }))).toBe(
      'Bearer carol-from-code',
    );
    // None returned: the shared connection, with the configured headers (none here).
    expect(seen(await collect(test.agent, 'who'))).toBeNull();
  });
});
