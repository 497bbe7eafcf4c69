import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, context, type TestAgent, toolNamed } from '../test-support/agents.js';
import { eventually, stdioTestServer } from '../test-support/servers.js';

const agents: TestAgent[] = [];
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
});

const offered = (test: TestAgent, call: number) => test.client.calls[call]!.options.tools!.map((t) => t.name);

// Real server processes on a shared machine: generous time.
describe('tools/list_changed', { timeout: 60_000 }, () => {
  it('a context server adds a tool: the model sees it on the next round of the same run and can call it', async () => {
    const test = await buildTestAgent(
      {
        contexts: [
          { kind: 'mcp', name: 'test', config: { ...stdioTestServer(), tools: ['add_tool', 'fresh'] } },
        ],
      },
      [
        { toolCalls: [{ id: 'call_add', name: 'add_tool', arguments: { name: 'fresh' } }] },
        { toolCalls: [{ id: 'call_fresh', name: 'fresh', arguments: {} }] },
        { text: 'It ran.' },
      ],
    );
    agents.push(test);
    const updates = await collect(test.agent, 'Add a tool called fresh, then run it', {
      session: test.agent.createSession('s'),
    });
    const called = updates.filter((u) => u.type === 'tool-called');
    expect(called).toMatchObject([
      { name: 'add_tool', result: { ok: true, data: 'added fresh' } },
      { name: 'fresh', result: { ok: true, data: 'fresh ran' } },
    ]);
    // One run: the first round offered the list as it was, the second the list the server changed to.
    expect(offered(test, 0)).toEqual(['add_tool', 'read_mcp_resource', 'get_mcp_prompt']);
    expect(offered(test, 1)).toEqual(['add_tool', 'fresh', 'read_mcp_resource', 'get_mcp_prompt']);
    expect(offered(test, 2)).toEqual(offered(test, 1));
  });

  it('a static (tools:) server keeps the tools it had at build; the server still answers them', async () => {
    const test = await buildTestAgent({
      tools: [{ kind: 'mcp', name: 'test', config: stdioTestServer(), tools: ['add_tool', 'echo'] }],
    });
    agents.push(test);
    const addTool = toolNamed(test.agent.tools, 'add_tool');
    const connection = (addTool as unknown as { connection: { tools: readonly { name: string }[] } })
      .connection;
    expect(await addTool.execute({ name: 'late' }, context())).toMatchObject({ ok: true });
    await eventually(() => connection.tools.some((t) => t.name === 'late'), 10_000, 'the refreshed list');
    expect(test.agent.tools.map((t) => t.name)).toEqual(['echo', 'add_tool']);
  });
});

describe('more MCP tools than maxExposedTools', { timeout: 60_000 }, () => {
  const many = { ...stdioTestServer({ TEST_SERVER_TOOLS: '200' }) };

  it('tools: the agent gets search_tools / call_tool instead of 209 schemas, and inspect says so', async () => {
    const test = await buildTestAgent({ tools: [{ kind: 'mcp', name: 'big', config: many }] });
    agents.push(test);
    expect(test.agent.tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
    const plan = await test.builder.explain();
    expect(plan.warnings.join('\n')).toMatch(
      /MCP tools exceed maxExposedTools \(40\).*search_tools \/ call_tool \(deferred loading\)/,
    );

    const search = toolNamed(test.agent.tools, 'search_tools');
    const found = await search.execute({ query: 'invoice requests', limit: 3 }, context());
    const matches = (found.data as { matches: { name: string; server: string; parameters: unknown }[] })
      .matches;
    expect(matches).toHaveLength(3);
    expect(matches[0]).toMatchObject({
      name: expect.stringMatching(/^tool_\d+$/),
      server: 'big',
      parameters: { type: 'object' },
    });
    const call = toolNamed(test.agent.tools, 'call_tool');
    expect(await call.execute({ name: matches[0]!.name, arguments: { q: 'x' } }, context())).toEqual({
      ok: true,
      data: `${matches[0]!.name} ran`,
    });
    expect(await call.execute({ name: 'echo', arguments: { text: 7 } }, context())).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Invalid arguments for echo: .*JSON Schema/),
    });
    expect(await call.execute({ name: 'nope' }, context())).toEqual({
      ok: false,
      error: "No tool named 'nope'; find one with search_tools",
    });
  });

  it('contexts: deferred per run, through the agent loop; a small server beside a big one stays listed', async () => {
    const test = await buildTestAgent(
      {
        tools: [{ kind: 'mcp', name: 'small', config: stdioTestServer(), tools: ['echo'] }],
        contexts: [{ kind: 'mcp', name: 'big', config: { ...many, resources: false, prompts: false } }],
      },
      [
        { toolCalls: [{ id: 'c1', name: 'search_tools', arguments: { query: 'flight' } }] },
        { toolCalls: [{ id: 'c2', name: 'call_tool', arguments: { name: 'tool_9', arguments: {} } }] },
        { text: 'Booked.' },
      ],
    );
    agents.push(test);
    const updates = await collect(test.agent, 'Book a flight');
    expect(offered(test, 0)).toEqual(['echo', 'search_tools', 'call_tool']);
    const results = updates
      .filter((u) => u.type === 'tool-called')
      .map((u) => (u as { result: unknown }).result);
    expect(JSON.stringify(results[0])).toContain('"name":"tool_9"');
    expect(results[1]).toEqual({ ok: true, data: 'tool_9 ran' });
    const plan = await test.builder.explain();
    expect(plan.tools.map((t) => [t.name, t.source])).toEqual([
      ['echo', 'static'],
      ['search_tools', 'injected'],
      ['call_tool', 'injected'],
    ]);
    await test.plugin.close();
  });
});
