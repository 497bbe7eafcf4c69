import { collectAgentResponse } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerProcess, startHttpTestServer } from '../test-support/servers.js';
import { mcpPlugin } from './mcp-plugin.js';

// Issue 14: a kind: workflow file's InvokeMcpTool action calls a real MCP server over streamable HTTP.
let server: HttpServerProcess;
beforeAll(async () => {
  server = await startHttpTestServer();
}, 30_000);
afterAll(() => server?.stop());

const workflow = (tool: string) => `kind: workflow
name: echo-flow
trigger:
  kind: OnConversationStart
  id: echo_flow
  actions:
    - kind: InvokeMcpTool
      id: call_echo
      serverUrl: ${server.url}
      toolName: ${tool}
      arguments:
        text: =Concat("said ", System.LastMessage.Text)
      output: Local.echoed
    - kind: SendActivity
      activity:
        text: =Concat("server ", Local.echoed)
`;

describe("a workflow's InvokeMcpTool", () => {
  it('calls the tool on the MCP server with the evaluated arguments; its answer reaches the next action', async () => {
    const agent = await new DeclAgentBuilder()
      .use(mcpPlugin())
      .fromYaml(workflow('echo'), 'echo.yaml')
      .buildAgent();
    expect((await collectAgentResponse(agent.run('hello'))).text).toBe('server said hello');
  }, 30_000);

  it('an error the tool reports fails the action, naming it', async () => {
    const agent = await new DeclAgentBuilder()
      .use(mcpPlugin())
      .fromYaml(workflow('fail'), 'echo.yaml')
      .buildAgent();
    await expect(collectAgentResponse(agent.run('hello'))).rejects.toThrow(/InvokeMcpTool at echo\.yaml:7/);
  }, 30_000);
});
