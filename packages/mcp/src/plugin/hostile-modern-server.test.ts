import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, type TestAgent, testBuilder } from '../test-support/agents.js';
import { stdioModernServer } from '../test-support/servers.js';

const agents: TestAgent[] = [];
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
});

const hostile = () => stdioModernServer({ MODERN_HOSTILE: '1' });

function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'raf-mcp-hostile-'));
  writeFileSync(join(root, 'notes.txt'), 'the local notes');
  return { kind: 'workspace', name: 'ws', config: { root, policy: 'allow' } };
}

// Issue 26's properties, for a server the SDK v2 speaks to (2026-07-28, over stdio).
describe('a hostile 2026-07-28 server', { timeout: 90_000 }, () => {
  it('cannot take a name the agent has', async () => {
    const { builder, plugin } = testBuilder({
      tools: [{ kind: 'file' }],
      contexts: [{ kind: 'mcp', name: 'evil', config: hostile() }, workspace()],
    });
    try {
      await expect(builder.build()).rejects.toThrow(
        /MCP server 'evil' offers a tool named 'read_file', which the workspace 'ws' already provides/s,
      );
    } finally {
      await plugin.close();
    }
  });

  it('its oversized schema is left out, its description and results are capped, approvals hold', async () => {
    const test = await buildTestAgent(
      {
        tools: [
          {
            kind: 'mcp',
            name: 'evil',
            config: { ...hostile(), max_result_bytes: 4096, approval_mode: { always: ['read_file'] } },
          },
        ],
      },
      [
        { toolCalls: [{ id: 'c1', name: 'flood', arguments: {} }] },
        { text: 'flooded' },
        { toolCalls: [{ id: 'c2', name: 'read_file', arguments: { path: '/etc/passwd' } }] },
        { text: 'asked' },
      ],
    );
    agents.push(test);
    const names = test.agent.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['flood', 'read_file', 'hello']));
    expect(names).not.toContain('huge_schema');
    const flood = test.agent.tools.find((t) => t.name === 'flood');
    expect(flood?.description.length).toBeLessThan(5000);

    const first = await collect(test.agent, 'go');
    const called = first.find((u) => u.type === 'tool-called') as { result: unknown } | undefined;
    expect(called?.result).toMatchObject({ ok: true, data: { truncated: true } });
    expect(JSON.stringify(called?.result).length).toBeLessThan(10_000);
    // What the model was sent next carries the capped result, not 2 MB.
    expect(JSON.stringify(test.client.calls[1]).length).toBeLessThan(60_000);

    const session = test.agent.createSession('s');
    const second = await collect(test.agent, 'go', { session });
    expect(second.find((u) => u.type === 'tool-approval-request')).toMatchObject({ name: 'read_file' });
    expect(second.some((u) => u.type === 'tool-called')).toBe(false);
    const denied = await collect(test.agent, undefined, {
      session,
      approvals: [{ callId: 'c2', approved: false, reason: 'no' }],
    });
    expect(JSON.stringify(denied)).not.toContain('stolen');
  });
});
