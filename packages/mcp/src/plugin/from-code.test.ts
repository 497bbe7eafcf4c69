import { ScriptedChatClient } from '@raf/client/testing';
import { AgentBuilder } from '@raf/framework';
import { describe, expect, it } from 'vitest';
import { context } from '../test-support/agents.js';
import { stdioTestServer } from '../test-support/servers.js';
import { createMcpContextProvider, createMcpTools } from './mcp-plugin.js';

describe('MCP from code', { timeout: 60_000 }, () => {
  it('createMcpTools gives one server’s tools; close() stops it', async () => {
    const { tools, warnings, close } = await createMcpTools({
      name: 'test',
      ...stdioTestServer(),
      tools: ['echo', 'nope'],
    });
    try {
      expect(tools.map((t) => t.name)).toEqual(['echo']);
      expect(warnings).toEqual([
        "MCP server 'test' does not offer 'nope'; it offers: echo, record, slow, crash, fail, image, structured, whoami, add_tool",
      ]);
      expect(await tools[0]!.execute({ text: 'hi' }, context())).toEqual({ ok: true, data: 'hi' });
    } finally {
      await close();
    }
    expect(await tools[0]!.execute({ text: 'hi' }, context())).toEqual({
      ok: false,
      error: "MCP server 'test' was closed",
    });
  });

  it('createMcpContextProvider plugs a server into an agent built in code', async () => {
    const provider = await createMcpContextProvider({ name: 'test', ...stdioTestServer(), tools: ['echo'] });
    try {
      const model = new ScriptedChatClient([
        { toolCalls: [{ id: 'c', name: 'echo', arguments: { text: 'from code' } }] },
        { text: 'done' },
      ]);
      const agent = new AgentBuilder('coded').chatClient(model).withContextProvider(provider).build();
      const updates = [];
      for await (const update of agent.run('go')) updates.push(update);
      expect(updates.find((u) => u.type === 'tool-called')).toMatchObject({
        result: { ok: true, data: 'from code' },
      });
      expect(model.calls[0]!.messages[0]!.content).toContain('Resources of the MCP server "test"');
    } finally {
      await provider.close();
    }
  });
});
