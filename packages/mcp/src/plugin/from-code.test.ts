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
        "MCP server 'test' does not offer 'nope'; it offers: echo, record, slow, crash, fail, image, structured, whoami, add_tool, ask_name, open_link, big, nested, blocks, bump",
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

  it("sends a server's stderr and connection events to the log, with env values masked", async () => {
    const lines: string[] = [];
    const { close } = await createMcpTools(
      {
        name: 'noisy',
        command: process.execPath,
        args: ['-e', "console.error('key is ' + process.env.KEY); require('node:fs').readFileSync(0)"],
        env: { KEY: 'hunter22' },
        connectTimeoutSecs: 1,
        reconnectAttempts: 1,
      },
      { log: (line) => lines.push(line) },
    ).catch((error: Error) => ({ close: async () => undefined, error }));
    await close();
    expect(lines).toContain('[mcp noisy] stderr: key is ***');
    expect(lines.join('\n')).not.toContain('hunter22');
    expect(lines.some((l) => l.startsWith('[mcp noisy] start failed (try 1 of 1)'))).toBe(true);
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
