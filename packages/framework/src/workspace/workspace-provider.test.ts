import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, defineTool, providerStateKey, toolSuccess } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { ApprovalRequiredTool } from '../approval/approval-required-tool.js';
import { createFileTools, FILE_TOOL_NAMES } from '../builtin-tools/index.js';
import {
  call,
  drain,
  echoTool,
  type Harness,
  sentMessages,
  significant,
  startHarness,
} from '../test-support/harness.js';
import { makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
import { WorkspaceContextProvider } from './workspace-context-provider.js';

let fx: WorkspaceFixture;
let harness: Harness;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
});
afterEach(async () => {
  await harness?.close();
  await fx.cleanup();
});

const webSearch = defineTool({
  name: 'web_search',
  description: 'Search the web',
  parameters: z.object({ query: z.string() }),
  execute: ({ query }) => toolSuccess({ results: [`about ${query}`] }),
});

describe('rule 1: workspace routing', () => {
  it('gives the model the 11 tools scoped and gated by policy; non-scope and withTool tools are not routed', async () => {
    harness = await startHarness([
      {
        toolCalls: [
          call('c1', 'read_file', { path: 'src/a.txt' }),
          call('c2', 'echo', { text: 'hi' }),
          call('c3', 'web_search', { query: 'raf' }),
        ],
      },
      { toolCalls: [call('c4', 'write_file', { path: '../outside/report.txt', content: 'done' })] },
      { text: 'Written.' },
    ]);
    const workspace = new WorkspaceContextProvider({ root: fx.root, name: 'proj', policy: 'ApproveOutside' })
      .addTools(createFileTools())
      .addTool(webSearch);
    expect(workspace.tools.filter((t) => t instanceof ApprovalRequiredTool).map((t) => t.name)).toEqual([
      ...FILE_TOOL_NAMES,
    ]);
    expect(workspace.tools.find((t) => t.name === 'web_search')).toBe(webSearch);
    const agent = new AgentBuilder('coder')
      .chatClient(harness.client)
      .withTool(echoTool())
      .withContextProvider(workspace)
      .build();
    const session = agent.createSession('s1');

    const first = significant(await drain(agent.run('Read a.txt, then write a report outside', { session })));
    const approval = first.find((u) => u.type === 'tool-approval-request');
    expect(approval).toEqual({
      type: 'tool-approval-request',
      callId: 'c4',
      name: 'write_file',
      arguments: { path: '../outside/report.txt', content: 'done' },
      description: expect.any(String),
      resolvedTarget: join(fx.outside, 'report.txt'),
    });
    expect(first.at(-1)).toEqual({ type: 'finish', reason: 'awaitingApproval' });
    const called = first.filter((u) => u.type === 'tool-called').map((u) => (u as { name: string }).name);
    expect(called).toEqual(['read_file', 'echo', 'web_search']); // inside: no approval asked

    const request = harness.server.requests[0]?.body as {
      tools: { function: { name: string } }[];
      messages: { content: string }[];
    };
    expect(request.tools.map((t) => t.function.name).sort()).toEqual(
      ['echo', ...FILE_TOOL_NAMES, 'web_search'].sort(),
    );
    expect(request.messages[0]?.content).toMatch(/## Workspace\n- Name: proj\n- Root: .*\n- Policy: approve/);
    expect(session.toJSON().state[providerStateKey('WorkspaceContextProvider:proj')]).toEqual({
      scope_name: 'proj',
      scope_root: fx.root,
      policy: 'ApproveOutside',
    });

    const resumed = significant(
      await drain(agent.run(undefined, { session, approvals: [{ callId: 'c4', approved: true }] })),
    );
    expect(resumed.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(await readFile(join(fx.outside, 'report.txt'), 'utf8')).toBe('done');
    const toolMessage = sentMessages(harness.server, 2).at(-1) as { content: string };
    expect(JSON.parse(toolMessage.content)).toMatchObject({ ok: true, data: { scope: 'outside_workspace' } });
  });

  it('runs the tools of a workspace-only agent (no static tools) under deny, refusing outside paths', async () => {
    harness = await startHarness([
      {
        toolCalls: [
          call('c1', 'read_file', { path: '/etc/hostname' }),
          call('c2', 'list_files', { path: '.' }),
        ],
      },
      { text: 'ok' },
    ]);
    const workspace = new WorkspaceContextProvider({
      root: fx.root,
      name: 'proj',
      policy: 'DenyOutside',
    }).addTools(createFileTools());
    const agent = new AgentBuilder('a').chatClient(harness.client).withContextProvider(workspace).build();
    await drain(agent.run('go'));
    const results = sentMessages(harness.server, 1)
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(String(m.content)));
    expect(results[0]).toEqual({
      ok: false,
      error: "Access denied: '/etc/hostname' is outside workspace 'proj'",
    });
    expect(results[1]).toMatchObject({ ok: true, data: { scope: 'workspace' } });
  });
});

describe('WorkspaceContextProvider', () => {
  it('treats extra roots as inside and lists them in its instructions', async () => {
    const extra = join(fx.base, 'root2');
    const workspace = new WorkspaceContextProvider({
      root: fx.root,
      roots: [extra],
      name: 'multi',
      policy: 'DenyOutside',
    }).addTools(createFileTools());
    const read = workspace.tools.find((t) => t.name === 'read_file')!;
    const result = await read.execute(
      { path: join(extra, 'secret.txt') },
      { signal: new AbortController().signal, callId: 'c' },
    );
    expect(result).toMatchObject({ ok: true, data: { scope: 'workspace', content: 'needle secret' } });
    expect(await workspace.instructions()).toContain(`- Roots: ${fx.root}, ${extra}`);
  });

  it('describes each policy, and refuses two tools with one name', async () => {
    for (const [policy, text] of [
      ['AllowAll', 'Policy: allow'],
      ['ApproveOutside', 'run_command waits for approval for every command'],
      ['DenyOutside', 'Policy: deny'],
    ] as const) {
      const workspace = new WorkspaceContextProvider({ root: fx.root, name: 'p', policy }).addTools(
        createFileTools(),
      );
      expect(await workspace.instructions()).toContain(text);
    }
    const workspace = new WorkspaceContextProvider({ root: fx.root, name: 'p', policy: 'AllowAll' }).addTools(
      createFileTools(),
    );
    expect(() => workspace.addTool(createFileTools()[0]!)).toThrow(/already has a tool named 'read_file'/);
  });

  it('shows a wrapped tool as gated to explain (requiresApproval without arguments)', async () => {
    const workspace = new WorkspaceContextProvider({
      root: fx.root,
      name: 'p',
      policy: 'ApproveOutside',
    }).addTools(createFileTools());
    for (const tool of workspace.tools) expect(await tool.requiresApproval?.()).toBe(true);
    const deny = new WorkspaceContextProvider({ root: fx.root, name: 'p', policy: 'DenyOutside' }).addTools(
      createFileTools(),
    );
    for (const tool of deny.tools) expect(await tool.requiresApproval?.()).toBe(false);
  });

  it("refuses an empty root (issue 10 item 16: '' used to become the current folder)", () => {
    for (const root of ['', '  ']) {
      expect(() => new WorkspaceContextProvider({ root, name: 'p', policy: 'DenyOutside' })).toThrow(
        ConfigError,
      );
      expect(() => new WorkspaceContextProvider({ root, name: 'p', policy: 'DenyOutside' })).toThrow(
        "workspace 'p': root must be a folder path, not an empty string",
      );
    }
    expect(
      () => new WorkspaceContextProvider({ root: fx.root, roots: [''], name: 'p', policy: 'DenyOutside' }),
    ).toThrow(/roots must be folder paths/);
  });
});
