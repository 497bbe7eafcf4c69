import { AgentSession } from '@raf/framework';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, type TestAgent, testBuilder } from '../test-support/agents.js';
import { eventLog, readEvents, stdioTestServer } from '../test-support/servers.js';

const agents: TestAgent[] = [];
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
});

async function agent(
  parts: Parameters<typeof buildTestAgent>[0],
  script: Parameters<typeof buildTestAgent>[1] = [],
) {
  const test = await buildTestAgent(parts, script);
  agents.push(test);
  return test;
}

const recordCall = { toolCalls: [{ id: 'call_rec', name: 'record', arguments: { value: 'payday' } }] };

// Real server processes on a shared machine: generous time.
describe('approval_mode', { timeout: 60_000 }, () => {
  it('pauses a gated MCP call; after a restart (new builder, new server, restored session) the approved call lands on the server', async () => {
    const events = eventLog();
    const yaml = {
      tools: [
        {
          kind: 'mcp',
          name: 'bank',
          config: stdioTestServer({ TEST_SERVER_LOG: events }),
          approval_mode: { always: ['record'] },
        },
      ],
    };
    const first = await agent(yaml, [recordCall]);
    const session = first.agent.createSession('pay-1');
    const paused = await collect(first.agent, 'Record payday', { session });
    expect(paused.filter((u) => u.type === 'tool-approval-request')).toEqual([
      {
        type: 'tool-approval-request',
        callId: 'call_rec',
        name: 'record',
        arguments: { value: 'payday' },
        description: 'Records a value in the server log',
      },
    ]);
    expect(paused.at(-1)).toEqual({ type: 'finish', reason: 'awaitingApproval' });
    const saved = JSON.stringify(session.toJSON());
    await first.plugin.close();
    expect(readEvents(events).filter((e) => e.event === 'call')).toEqual([]);

    const second = await agent(yaml, [{ text: 'Recorded.' }]);
    const restored = AgentSession.fromJSON(JSON.parse(saved));
    const resumed = await collect(second.agent, undefined, {
      session: restored,
      approvals: [{ callId: 'call_rec', approved: true }],
    });
    expect(resumed.find((u) => u.type === 'tool-called')).toMatchObject({
      callId: 'call_rec',
      result: { ok: true, data: 'recorded payday' },
    });
    expect(resumed.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(readEvents(events).filter((e) => e.event === 'call')).toMatchObject([
      { tool: 'record', value: 'payday' },
    ]);
  });

  it('a denied call never reaches the server; ungated tools of the same server run without asking', async () => {
    const events = eventLog();
    const test = await agent(
      {
        contexts: [
          {
            kind: 'mcp',
            name: 'bank',
            config: { ...stdioTestServer({ TEST_SERVER_LOG: events }), approval_mode: { never: ['echo'] } },
          },
        ],
      },
      [
        { toolCalls: [{ id: 'call_echo', name: 'echo', arguments: { text: 'hi' } }] },
        recordCall,
        { text: 'Not recorded.' },
      ],
    );
    const session = test.agent.createSession();
    const first = await collect(test.agent, 'go', { session });
    expect(
      first.filter((u) => u.type === 'tool-approval-request').map((u) => (u as { name: string }).name),
    ).toEqual(['record']);
    expect(first.find((u) => u.type === 'tool-called')).toMatchObject({ name: 'echo', result: { ok: true } });
    const resumed = await collect(test.agent, undefined, {
      session,
      approvals: [{ callId: 'call_rec', approved: false, reason: 'not today' }],
    });
    expect(resumed.find((u) => u.type === 'tool-called')).toMatchObject({
      result: { ok: false, error: 'Rejected: not today' },
    });
    expect(readEvents(events).filter((e) => e.event === 'call')).toEqual([]);
  });

  it('holds through deferred loading: call_tool asks for the named tool when it is gated', async () => {
    const test = await agent(
      {
        tools: [
          {
            kind: 'mcp',
            name: 'bank',
            config: { ...stdioTestServer(), max_exposed_tools: 2 },
            approval_mode: { always: ['record'] },
          },
        ],
      },
      [
        {
          toolCalls: [{ id: 'c1', name: 'call_tool', arguments: { name: 'echo', arguments: { text: 'a' } } }],
        },
        {
          toolCalls: [
            { id: 'c2', name: 'call_tool', arguments: { name: 'record', arguments: { value: 'b' } } },
          ],
        },
      ],
    );
    expect(test.agent.tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
    const updates = await collect(test.agent, 'go');
    expect(updates.find((u) => u.type === 'tool-called')).toMatchObject({
      callId: 'c1',
      result: { ok: true, data: 'a' },
    });
    expect(updates.filter((u) => u.type === 'tool-approval-request')).toMatchObject([
      { callId: 'c2', name: 'call_tool' },
    ]);
  });
});

describe('approval_mode naming a tool the server does not offer', { timeout: 60_000 }, () => {
  it('is an error on a tools: entry (a misspelt always: [recrod] let record run unasked)', async () => {
    const { builder, plugin } = testBuilder({
      tools: [
        { kind: 'mcp', name: 'bank', config: stdioTestServer(), approval_mode: { always: ['recrod'] } },
      ],
    });
    const report = await builder.validate();
    await plugin.close();
    expect(report.errors.map((d) => d.message)).toEqual([
      expect.stringMatching(
        /^approval_mode names 'recrod', which MCP server 'bank' does not offer; its tools here: .*record/,
      ),
    ]);
  });

  it('is a warning on a contexts: entry, whose tools may still come', async () => {
    const { builder, plugin } = testBuilder({
      contexts: [
        { kind: 'mcp', name: 'bank', config: stdioTestServer(), approval_mode: { never: ['ech0'] } },
      ],
    });
    const report = await builder.validate();
    await plugin.close();
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((d) => d.message)).toEqual([
      "approval_mode names 'ech0', which MCP server 'bank' does not offer (yet)",
    ]);
  });
});

// Issue 26: `approval_mode: always` beside `config` on a contexts entry was an error in validate
// but a warning in run, which then dropped it and ran the tools unasked.
describe('approval_mode beside config on a contexts: entry', { timeout: 60_000 }, () => {
  it('takes effect: the tools ask (validate and run agree)', async () => {
    const events = eventLog();
    const test = await agent(
      {
        contexts: [
          {
            kind: 'mcp',
            name: 'bank',
            config: stdioTestServer({ TEST_SERVER_LOG: events }),
            approval_mode: 'always',
          },
        ],
      },
      [recordCall],
    );
    const updates = await collect(test.agent, 'Record payday');
    expect(updates.filter((u) => u.type === 'tool-approval-request')).toMatchObject([
      { callId: 'call_rec', name: 'record' },
    ]);
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'awaitingApproval' });
    expect(readEvents(events).filter((e) => e.event === 'call')).toEqual([]);
    const plan = await test.builder.explain();
    expect(plan.tools.find((t) => t.name === 'record')).toMatchObject({ gated: true, approval: 'always' });
  });

  it('validate reports no problem with it, in strict mode too', async () => {
    const { builder, plugin } = testBuilder({
      contexts: [{ kind: 'mcp', name: 'bank', config: stdioTestServer(), approval_mode: 'always' }],
    });
    const report = await builder.strictMode().validate();
    await plugin.close();
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('beside config on another kind, it is an error (never dropped with a warning)', async () => {
    const { builder } = testBuilder({
      contexts: [{ kind: 'workspace', config: { root: '.' }, approval_mode: 'always' }],
    });
    const report = await builder.validate();
    expect(report.errors.map((d) => d.message)).toEqual([
      expect.stringMatching(/'approvalMode' beside config applies to kind: mcp/),
    ]);
    await expect(builder.build()).rejects.toThrow(/beside config applies to kind: mcp/);
  });
});

describe('explain (raf inspect --json)', { timeout: 60_000 }, () => {
  it('lists MCP tools as static or injected, with the server, the gate, parallel and the main-process route', async () => {
    const test = await agent({
      tools: [
        {
          kind: 'mcp',
          name: 'ops',
          config: stdioTestServer(),
          tools: ['echo', 'record'],
          approval_mode: { always: ['record'] },
        },
      ],
      contexts: [
        { kind: 'mcp', name: 'docs', config: { ...stdioTestServer(), tools: ['whoami'], prompts: false } },
      ],
    });
    const plan = await test.builder.explain();
    expect(plan.toolLoop).toBe(true);
    expect(plan.contexts).toEqual([
      { kind: 'history', name: 'InMemoryHistoryProvider', provider: 'InMemoryHistoryProvider', order: 0 },
      { kind: 'mcp', name: 'docs', provider: 'docs', order: 1 },
    ]);
    const common = { kind: 'mcp', workspace: null, executionMode: 'parallel', route: 'main-process-proxy' };
    expect(plan.tools).toEqual([
      { ...common, name: 'echo', source: 'static', server: 'ops', gated: false, approval: 'never' },
      { ...common, name: 'record', source: 'static', server: 'ops', gated: true, approval: 'always' },
      {
        ...common,
        name: 'whoami',
        source: 'injected',
        context: 'docs',
        server: 'docs',
        gated: false,
        approval: 'never',
      },
      {
        ...common,
        name: 'read_mcp_resource',
        source: 'injected',
        context: 'docs',
        gated: false,
        approval: 'never',
      },
    ]);
  });
});
