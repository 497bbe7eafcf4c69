import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, type TestAgent, testBuilder } from '../test-support/agents.js';
import { eventLog, readEvents, stdioTestServer } from '../test-support/servers.js';

const agents: TestAgent[] = [];
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
});

function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'raf-mcp-clash-'));
  writeFileSync(join(root, 'notes.txt'), 'the local notes');
  return { kind: 'workspace', name: 'ws', config: { root, policy: 'allow' } };
}

// Issue 26: an MCP context listed before the workspace took `read_file` (first name wins), and the
// model's file reads and writes went to the server.
describe('a server tool never takes a name the agent has', { timeout: 60_000 }, () => {
  it('a server offering read_file, listed before the workspace, is refused at build at its entry', async () => {
    const events = eventLog();
    const { builder, plugin } = testBuilder({
      tools: [{ kind: 'file' }],
      contexts: [
        {
          kind: 'mcp',
          name: 'srv',
          config: stdioTestServer({ TEST_SERVER_READ_FILE: '1', TEST_SERVER_LOG: events }),
        },
        workspace(),
      ],
    });
    try {
      await expect(builder.build()).rejects.toThrow(
        /contexts\[0\].*MCP server 'srv' offers a tool named 'read_file', which the workspace 'ws' already provides/s,
      );
    } finally {
      await plugin.close();
    }
  });

  it('as a static tools: entry too', async () => {
    const { builder, plugin } = testBuilder({
      tools: [
        { kind: 'file' },
        { kind: 'mcp', name: 'srv', config: stdioTestServer({ TEST_SERVER_READ_FILE: '1' }) },
      ],
      contexts: [workspace()],
    });
    try {
      await expect(builder.build()).rejects.toThrow(/tools\[1\].*read_file/s);
    } finally {
      await plugin.close();
    }
  });

  it('renamed with tool_name, the server tool is offered beside the workspace one', async () => {
    const test = await buildTestAgent({
      tools: [{ kind: 'file' }],
      contexts: [
        {
          kind: 'mcp',
          name: 'srv',
          config: {
            ...stdioTestServer({ TEST_SERVER_READ_FILE: '1' }),
            tool_name: { read_file: 'srv_read' },
          },
        },
        workspace(),
      ],
    });
    agents.push(test);
    expect(test.agent.contextProviders.some((p) => p.kind === 'mcp')).toBe(true);
  });

  it("two servers with one name: the second is prefixed, and inspect shows the server's own name", async () => {
    const test = await buildTestAgent({
      tools: [
        { kind: 'mcp', name: 'a', config: { ...stdioTestServer(), tools: ['echo'] } },
        { kind: 'mcp', name: 'b', config: { ...stdioTestServer({ TEST_SERVER_X: '1' }), tools: ['echo'] } },
      ],
    });
    agents.push(test);
    const plan = await test.builder.explain();
    expect(plan.tools.map((t) => [t.name, t.server, t.remoteName])).toEqual([
      ['echo', 'a', undefined],
      ['b__echo', 'b', 'echo'],
    ]);
  });

  it('a read_file a list_changed brings mid-session is not offered: the workspace keeps it', async () => {
    const events = eventLog();
    const test = await buildTestAgent(
      {
        tools: [{ kind: 'file' }],
        contexts: [
          { kind: 'mcp', name: 'srv', config: stdioTestServer({ TEST_SERVER_LOG: events }) },
          workspace(),
        ],
      },
      [
        { toolCalls: [{ id: 'c1', name: 'add_tool', arguments: { name: 'read_file' } }] },
        { text: 'added' },
        { toolCalls: [{ id: 'c2', name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { text: 'done' },
      ],
    );
    agents.push(test);
    const session = test.agent.createSession();
    await collect(test.agent, 'add a tool', { session });
    const second = await collect(test.agent, 'read notes', { session });
    const called = second.find((u) => u.type === 'tool-called');
    expect(JSON.stringify(called)).toContain('the local notes');
    expect(JSON.stringify(called)).not.toContain("server's read_file");
    expect(second.filter((u) => u.type === 'warning').map((u) => (u as { message: string }).message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/'srv' offers a tool named 'read_file'.*not offered/)]),
    );
    expect(readEvents(events).filter((e) => e.tool === 'read_file')).toEqual([]);
  });

  it('two tools of one server whose names fit to one name get two names; each call reaches its own tool', async () => {
    const test = await buildTestAgent(
      { contexts: [{ kind: 'mcp', name: 'srv', config: stdioTestServer({ TEST_SERVER_LOOKALIKES: '1' }) }] },
      [
        {
          toolCalls: [
            { id: 'c1', name: 'ec_ho', arguments: {} },
            { id: 'c2', name: 'srv__ec_ho', arguments: {} },
          ],
        },
        { text: 'done' },
      ],
    );
    agents.push(test);
    const plan = await test.builder.explain();
    const lookalikes = plan.tools.filter((t) => t.server === 'srv' && /ec_ho/.test(t.name));
    expect(lookalikes.map((t) => [t.name, t.remoteName])).toEqual([
      ['srv__ec_ho', 'ec/ho'],
      ['ec_ho', undefined],
    ]);
    const updates = await collect(test.agent, 'go');
    const results = updates
      .filter((u) => u.type === 'tool-called')
      .map((u) => [(u as { name: string }).name, (u as { result: unknown }).result]);
    expect(results).toEqual(
      expect.arrayContaining([
        ['ec_ho', { ok: true, data: 'underscore ran' }],
        ['srv__ec_ho', { ok: true, data: 'slash ran' }],
      ]),
    );
  });
});
