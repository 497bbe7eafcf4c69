// Agents built from a definition object, the way YAML is, on a scripted model.
import { ScriptedChatClient, type ScriptedResponse } from '@raf/client/testing';
import { type AgentResponseUpdate, definePlugin, type ITool, type ToolExecutionContext } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import type { AgentRunOptions, ChatClientAgent } from '@raf/framework';
import { type McpPlugin, mcpPlugin } from '../plugin/mcp-plugin.js';

export interface TestAgent {
  agent: ChatClientAgent;
  client: ScriptedChatClient;
  builder: DeclAgentBuilder;
  plugin: McpPlugin;
}

/** A builder for `{ tools, contexts }` with the MCP plugin and a `scripted` model provider. */
export function testBuilder(
  parts: { tools?: unknown[]; contexts?: unknown[] },
  script: ScriptedResponse[] = [],
  plugin: McpPlugin = mcpPlugin(),
): { builder: DeclAgentBuilder; client: ScriptedChatClient; plugin: McpPlugin } {
  const client = new ScriptedChatClient(script);
  const builder = new DeclAgentBuilder()
    .fromObject({
      name: 'mcp-test',
      model: { id: 'scripted', provider: 'scripted' },
      instructions: 'Test agent.',
      ...parts,
    })
    .use(plugin)
    .use(
      definePlugin({
        specificationVersion: 'v1',
        packageName: 'scripted-model',
        modelProviders: { scripted: () => client },
      }),
    );
  return { builder, client, plugin };
}

export async function buildTestAgent(
  parts: { tools?: unknown[]; contexts?: unknown[] },
  script: ScriptedResponse[] = [],
  plugin?: McpPlugin,
): Promise<TestAgent> {
  const made = testBuilder(parts, script, plugin);
  return { ...made, agent: await made.builder.build() };
}

export async function collect(
  agent: ChatClientAgent,
  input: string | undefined,
  options: AgentRunOptions = {},
) {
  const updates: AgentResponseUpdate[] = [];
  for await (const update of agent.run(input, options)) updates.push(update);
  return updates;
}

export function toolNamed(tools: readonly ITool[], name: string): ITool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

export function context(signal: AbortSignal = new AbortController().signal): ToolExecutionContext {
  return { signal, callId: 'call_test' };
}
