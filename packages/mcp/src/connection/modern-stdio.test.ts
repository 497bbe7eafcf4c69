import { afterEach, describe, expect, it } from 'vitest';
import { mcpPlugin } from '../plugin/mcp-plugin.js';
import { buildTestAgent, collect, type TestAgent } from '../test-support/agents.js';
import { stdioModernServer, stdioTestServer } from '../test-support/servers.js';

const agents: TestAgent[] = [];
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
});

const call = (id: string, name: string, args: Record<string, string | number>) => ({
  toolCalls: [{ id, name, arguments: args }],
});
const results = (updates: Awaited<ReturnType<typeof collect>>) =>
  updates.filter((u) => u.type === 'tool-called').map((u) => (u as { result: unknown }).result);

describe('a stdio server of the 2026-07-28 revision only, beside a 2025-11-25 one', {
  timeout: 90_000,
}, () => {
  it('is negotiated like an HTTP one (SDK v2 over stdio); tools of both are called', async () => {
    const lines: string[] = [];
    const test = await buildTestAgent(
      {
        tools: [
          { kind: 'mcp', name: 'legacy', config: stdioTestServer() },
          { kind: 'mcp', name: 'modern', config: stdioModernServer() },
        ],
      },
      [
        call('c1', 'echo', { text: 'one' }),
        call('c2', 'modern__echo', { text: 'two' }),
        call('c3', 'hello', { who: 'raf' }),
        { text: 'done' },
      ],
      mcpPlugin({ log: (line) => lines.push(line) }),
    );
    agents.push(test);
    const log = lines.join('\n');
    expect(log).toMatch(
      /\[mcp modern\] the server refused the 2025-11-25 handshake; negotiating with the SDK v2/,
    );
    expect(log).not.toMatch(/\[mcp legacy\] the server refused/);
    const names = test.agent.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'modern__echo', 'hello', 'big']));
    const updates = await collect(test.agent, 'go');
    expect(results(updates)).toEqual([
      { ok: true, data: 'one' },
      { ok: true, data: 'modern two' },
      { ok: true, data: 'hello raf, from 2026-07-28' },
    ]);
  });
});
