import { afterEach, describe, expect, it } from 'vitest';
import { mcpPlugin } from '../plugin/mcp-plugin.js';
import { buildTestAgent, collect, type TestAgent } from '../test-support/agents.js';
import { type ModernServer, startModernServer } from '../test-support/modern-server.js';
import { stdioTestServer } from '../test-support/servers.js';

const agents: TestAgent[] = [];
let modern: ModernServer | undefined;
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
  await modern?.close();
  modern = undefined;
});

const call = (id: string, name: string, args: Record<string, string | number>) => ({
  toolCalls: [{ id, name, arguments: args }],
});

describe('protocol revisions: a 2026-07-28 server and a 2025-11-25 one in one agent', {
  timeout: 60_000,
}, () => {
  it('negotiates with each; names, caps and approvals hold for the v2 server too', async () => {
    modern = await startModernServer();
    const lines: string[] = [];
    const test = await buildTestAgent(
      {
        tools: [
          { kind: 'mcp', name: 'legacy', config: stdioTestServer() },
          {
            kind: 'mcp',
            name: 'modern',
            config: { url: modern.url, max_result_bytes: 1024, approval_mode: { always: ['hello'] } },
          },
        ],
      },
      [
        call('c1', 'echo', { text: 'one' }),
        { text: '1' },
        call('c2', 'modern__echo', { text: 'two' }),
        { text: '2' },
        call('c3', 'modern__big', { bytes: 5000 }),
        { text: '3' },
        call('c4', 'hello', { who: 'raf' }),
        { text: 'done' },
      ],
      mcpPlugin({ log: (line) => lines.push(line) }),
    );
    agents.push(test);
    expect(lines.join('\n')).toMatch(
      /\[mcp modern\] the server refused the 2025-11-25 handshake; negotiating with the SDK v2/,
    );
    const names = test.agent.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'modern__echo', 'hello', 'big', 'modern__big']));

    const results = (updates: Awaited<ReturnType<typeof collect>>) =>
      updates.filter((u) => u.type === 'tool-called').map((u) => (u as { result: unknown }).result);
    const first = await collect(test.agent, 'go');
    expect(results(first)).toEqual([{ ok: true, data: 'one' }]);
    const second = await collect(test.agent, 'go');
    expect(results(second)).toEqual([{ ok: true, data: 'modern two' }]);
    const third = await collect(test.agent, 'go');
    expect(results(third)[0]).toMatchObject({ ok: true, data: { truncated: true } });
    // A gated tool of the v2 server pauses for approval like any other.
    const session = test.agent.createSession('s');
    const fourth = await collect(test.agent, 'go', { session });
    expect(fourth.find((u) => u.type === 'tool-approval-request')).toMatchObject({ name: 'hello' });
    const resumed = await collect(test.agent, undefined, {
      session,
      approvals: [{ callId: 'c4', approved: true }],
    });
    expect(results(resumed)).toEqual([{ ok: true, data: 'hello raf, from 2026-07-28' }]);
  });
});
