import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedChatClient } from '@raf/client/testing';
import { collectAgentResponse, definePlugin } from '@raf/core';
import { DeclAgentBuilder, formatDiagnostic } from '@raf/decl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stdioTestServer } from '../test-support/servers.js';
import { mcpPlugin } from './mcp-plugin.js';

// Issue 34: servers named by `stdio://NAME` / `server: NAME`, declared in the mcpServers map the
// users of Claude Desktop, Cursor and VS Code already keep (`mcp.json`), in the agent file or code.
let dir: string;
const plugins: ReturnType<typeof mcpPlugin>[] = [];
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-mcp-named-')));
});
afterEach(async () => {
  await Promise.all(plugins.splice(0).map((p) => p.close()));
  await rm(dir, { recursive: true, force: true });
});

const plugin = () => {
  const made = mcpPlugin();
  plugins.push(made);
  return made;
};
const fs = () => ({ mcpServers: { fs: stdioTestServer() } });
const model = 'model: { id: scripted, provider: scripted }';
/** The file's `provider: scripted` answers from this client. */
const scripted = (client: ScriptedChatClient) =>
  definePlugin({
    specificationVersion: 'v1',
    packageName: 'scripted-model',
    modelProviders: { scripted: () => client },
  });

describe('MCP servers named from an mcpServers map', { timeout: 60_000 }, () => {
  it('server_url: stdio://fs with a mcp.json beside the file calls the server’s tool (the upstream docs’ form)', async () => {
    await writeFile(join(dir, 'mcp.json'), JSON.stringify(fs()));
    await writeFile(
      join(dir, 'agent.yaml'),
      `name: a\n${model}\ntools:\n  - kind: mcp\n    name: echo\n    server_url: "stdio://fs"\n`,
    );
    const client = new ScriptedChatClient([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'over stdio' } }] },
      { text: 'done' },
    ]);
    const agent = await new DeclAgentBuilder()
      .use(plugin())
      .use(scripted(client))
      .fromFile(join(dir, 'agent.yaml'))
      .build();
    const response = await collectAgentResponse(agent.run('go'));
    expect(response.text).toBe('done');
    expect(client.calls[1]?.messages.at(-1)?.content).toContain('over stdio');
    const explained = await new DeclAgentBuilder()
      .use(plugin())
      .use(scripted(new ScriptedChatClient([])))
      .fromFile(join(dir, 'agent.yaml'))
      .explain();
    expect(explained.tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('server: NAME from the agent file’s own mcpServers, a context too; code wins over the file', async () => {
    await writeFile(
      join(dir, 'agent.yaml'),
      `name: a\n${model}\nmcpServers:\n  fs: { command: /nonexistent/server }\ncontexts:\n  - kind: mcp\n    name: files\n    config: { server: fs, tools: [echo] }\n`,
    );
    // The file's `fs` cannot start; the one from code replaces it.
    const client = new ScriptedChatClient([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'from code' } }] },
      { text: 'ok' },
    ]);
    const agent = await new DeclAgentBuilder()
      .use(plugin())
      .use(scripted(client))
      .fromFile(join(dir, 'agent.yaml'))
      .withMcpServer('fs', stdioTestServer())
      .build();
    expect((await collectAgentResponse(agent.run('go'))).text).toBe('ok');
    expect(client.calls[1]?.messages.at(-1)?.content).toContain('from code');
  });

  it('a kind: workflow InvokeMcpTool action with serverUrl: stdio://fs (and the snake_case kind) calls it', async () => {
    await writeFile(join(dir, 'mcp.json'), JSON.stringify(fs()));
    await writeFile(
      join(dir, 'flow.yaml'),
      [
        'kind: workflow',
        'name: echo-flow',
        'trigger:',
        '  kind: OnConversationStart',
        '  id: echo_flow',
        '  actions:',
        '    - kind: invoke_mcp_tool',
        '      id: call_echo',
        '      serverUrl: stdio://fs',
        '      toolName: echo',
        '      arguments:',
        '        text: =Concat("said ", System.LastMessage.Text)',
        '      output: Local.echoed',
        '    - kind: SendActivity',
        '      activity:',
        '        text: =Concat("server ", Local.echoed)',
        '',
      ].join('\n'),
    );
    const agent = await new DeclAgentBuilder().use(plugin()).fromFile(join(dir, 'flow.yaml')).buildAgent();
    expect((await collectAgentResponse(agent.run('hello'))).text).toBe('server said hello');
  });

  it('an unknown name is a located error that lists the known servers and where they come from', async () => {
    await writeFile(join(dir, 'mcp.json'), JSON.stringify(fs()));
    await writeFile(
      join(dir, 'agent.yaml'),
      `name: a\n${model}\ntools:\n  - kind: mcp\n    name: echo\n    server_url: "stdio://filesystem-server"\n`,
    );
    const report = await new DeclAgentBuilder()
      .use(plugin())
      .use(scripted(new ScriptedChatClient([])))
      .fromFile(join(dir, 'agent.yaml'))
      .validate();
    expect(report.errors.map(formatDiagnostic)).toEqual([
      `${join(dir, 'agent.yaml')}:5:11 tools[0].name: mcp tool 'echo': serverUrl names the MCP server 'filesystem-server', which no mcpServers map declares; known: fs (mcp.json)`,
    ]);
  });

  it('a gate written in the mcpServers map (approval_mode, tools) is an error, never dropped', async () => {
    for (const key of ['approval_mode', 'aproval_mode', 'approvalMode', 'tools']) {
      const server = { ...stdioTestServer(), [key]: key === 'tools' ? ['echo'] : 'always', autoApprove: [] };
      await writeFile(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { fs: server } }));
      await writeFile(join(dir, 'agent.yaml'), `name: a\n${model}\ntools:\n  - kind: mcp\n    server: fs\n`);
      const report = await new DeclAgentBuilder()
        .use(plugin())
        .use(scripted(new ScriptedChatClient([])))
        .fromFile(join(dir, 'agent.yaml'))
        .validate();
      expect(report.errors.map(formatDiagnostic)).toEqual([
        `${join(dir, 'agent.yaml')}:4:11 tools[0].kind: mcpServers.fs (mcp.json): '${key}' is not read in an mcpServers map, which gives only the server's connection; set approval_mode, tools or tool_name on the kind: mcp entry that names it (mcp tool)`,
      ]);
    }
  });

  it('a malformed mcp.json is an error naming the file, line and server', async () => {
    await writeFile(join(dir, 'mcp.json'), '{\n  "mcpServers": {\n    "fs": { "args": ["x"] }\n  }\n}\n');
    await writeFile(join(dir, 'agent.yaml'), `name: a\n${model}\n`);
    const report = await new DeclAgentBuilder()
      .use(scripted(new ScriptedChatClient([])))
      .fromFile(join(dir, 'agent.yaml'))
      .validate();
    expect(report.errors.map(formatDiagnostic)).toEqual([
      `${join(dir, 'mcp.json')}:3:11 mcpServers.fs: the MCP server 'fs' needs a command (stdio) or a url (HTTP)`,
    ]);
  });
});
