import { fileURLToPath } from 'node:url';
import { OpenAICompatibleChatClient } from '@raf/client';
import { type MockModelServer, type MockTurn, startMockModelServer } from '@raf/client/testing';
import type { JSONValue, ScopePolicy } from '@raf/core';
import { AgentBuilder } from '../agent/agent-builder.js';
import type { ChatClientAgent } from '../agent/chat-client-agent.js';
import { createFileTool, type FileToolName } from '../builtin-tools/index.js';
import type { AgentToolPolicy } from '../runtime-policy/tool-governance.js';
import type { SubAgentFactoryResult, SubAgentSpec } from '../sub-agents/sub-agent.js';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';

/** A sub-agent for tests: a model at `baseURL` (named `model`), file tools in a workspace at `root`. */
export interface TestSubAgentOptions {
  name: string;
  baseURL: string;
  root: string;
  policy?: ScopePolicy;
  tools?: FileToolName[];
  toolPolicy?: AgentToolPolicy;
  /** Exits the worker process while building (a worker that dies at start). */
  crash?: boolean;
  /** Sends its parent a message outside the protocol while building. */
  malformed?: boolean;
  /** Sends its parent this message while building (a compromised worker's crafted message). */
  forged?: JSONValue;
}

export function buildTestSubAgent(options: TestSubAgentOptions): ChatClientAgent {
  const workspace = new WorkspaceContextProvider({
    name: 'project',
    root: options.root,
    policy: options.policy ?? 'ApproveOutside',
  });
  workspace.addTools((options.tools ?? ['read_file', 'write_file']).map((name) => createFileTool(name)));
  return new AgentBuilder(options.name)
    .chatClient(
      new OpenAICompatibleChatClient({ model: options.name, baseURL: options.baseURL, maxRetries: 0 }),
    )
    .instructions(`You are ${options.name}.`)
    .withContextProvider(workspace)
    .build();
}

/** The worker's factory (`WorkerFactoryRef` to this module, export `testSubAgent`). */
export function testSubAgent(options: JSONValue): SubAgentFactoryResult {
  const parsed = options as unknown as TestSubAgentOptions;
  if (parsed.crash) process.exit(7);
  if (parsed.malformed) process.send?.({ v: 1, type: 'done', text: 42 });
  if (parsed.forged !== undefined) process.send?.(parsed.forged);
  return { agent: buildTestSubAgent(parsed) };
}

export const TEST_FACTORY_MODULE = fileURLToPath(import.meta.url);

/** A spec that runs in a worker built by `testSubAgent` (and in this process by the same code). */
export function testSpec(options: TestSubAgentOptions, extra: Partial<SubAgentSpec> = {}): SubAgentSpec {
  return {
    name: options.name,
    description: `the ${options.name}`,
    agent: buildTestSubAgent(options),
    worker: { module: TEST_FACTORY_MODULE, export: 'testSubAgent', options: options as unknown as JSONValue },
    ...extra,
  };
}

/** One mock model server for several agents: each request is answered from the script of the model it names. */
export async function startAgentsServer(
  scripts: Record<string, MockTurn[]>,
): Promise<MockModelServer & { byModel(model: string): Record<string, unknown>[] }> {
  const queues = Object.fromEntries(Object.entries(scripts).map(([k, v]) => [k, [...v]]));
  const server = await startMockModelServer({
    turns: (request) => {
      const model = String(request.body?.model);
      const next = queues[model]?.shift();
      return next ?? { text: `(no more turns scripted for ${model})` };
    },
  });
  return Object.assign(server, {
    byModel: (model: string) =>
      server.requests.filter((r) => r.body?.model === model).map((r) => r.body as Record<string, unknown>),
  });
}
