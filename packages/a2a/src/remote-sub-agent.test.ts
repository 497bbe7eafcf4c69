import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import type { AgentResponseUpdate } from '@raf/core';
import { DeclAgentBuilder, formatDiagnostic } from '@raf/decl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { a2aPlugin } from './a2a-plugin.js';
import { textOfParts } from './client/a2a-events.js';
import { agentCardFor } from './server/agent-card.js';
import { type SdkA2AServer, startSdkA2AServer } from './test-support/sdk-a2a-server.js';

/** A remote agent that answers in upper case, as two streamed artifact chunks. */
const shouting: AgentExecutor = {
  async execute(context: RequestContext, bus: ExecutionEventBus) {
    const { taskId, contextId } = context;
    const text = textOfParts(context.userMessage.parts).toUpperCase();
    const now = () => new Date().toISOString();
    bus.publish({
      kind: 'task',
      data: {
        id: taskId,
        contextId,
        status: { state: 1, message: undefined, timestamp: now() },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      },
    });
    for (const [i, piece] of ['REMOTE: ', text].entries())
      bus.publish({
        kind: 'artifactUpdate',
        data: {
          taskId,
          contextId,
          artifact: {
            artifactId: 'a',
            name: 'answer',
            description: '',
            parts: [
              { content: { $case: 'text', value: piece }, metadata: undefined, filename: '', mediaType: '' },
            ],
            metadata: undefined,
            extensions: [],
          },
          append: i > 0,
          lastChunk: i === 1,
          metadata: undefined,
        },
      });
    bus.publish({
      kind: 'statusUpdate',
      data: {
        taskId,
        contextId,
        status: { state: 3, message: undefined, timestamp: now() },
        metadata: undefined,
      },
    });
    bus.finished();
  },
  async cancelTask() {},
};

let dir: string;
let model: MockModelServer | undefined;
let remote: SdkA2AServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-a2a-')));
});
afterEach(async () => {
  await model?.close();
  await remote?.close();
  model = remote = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function coordinator(entry: string): Promise<string> {
  model = await startMockModelServer({
    turns: [
      { toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { agent: 'remote', task: 'say hi' } }] },
      { text: 'Done.' },
    ],
  });
  const file = join(dir, 'agent.yaml');
  await writeFile(
    file,
    `name: coordinator
model: { id: coordinator, provider: custom, connection: { endpoint: "${model.baseURL}" } }
instructions: Delegate.
subAgents:
${entry}
`,
  );
  return file;
}

async function results(file: string): Promise<unknown[]> {
  const plugin = a2aPlugin();
  try {
    const agent = await new DeclAgentBuilder().fromFile(file).use(plugin).build();
    const updates: AgentResponseUpdate[] = [];
    for await (const u of agent.run('go')) updates.push(u);
    return updates.filter((u) => u.type === 'tool-called').map((u) => u.type === 'tool-called' && u.result);
  } finally {
    await plugin.close();
  }
}

describe('subAgents: kind: a2a (a remote A2A agent)', () => {
  it('is delegated to like a local sub-agent: the task goes to the remote agent, its streamed answer comes back', async () => {
    remote = await startSdkA2AServer(shouting);
    const file = await coordinator(`  - kind: a2a
    name: remote
    description: shouts
    url: ${remote.url}
    allowPrivate: [127.0.0.1]
    headers: { Authorization: "Bearer s3cret" }`);
    expect(await results(file)).toEqual([{ ok: true, data: { agent: 'remote', answer: 'REMOTE: SAY HI' } }]);
    expect(remote.authorizations).toEqual(['Bearer s3cret']);
    // The coordinator was offered the delegation tools naming the remote agent.
    const tools = (model!.requests[0]?.body?.tools ?? []) as {
      function: { name: string; description: string };
    }[];
    expect(tools.map((t) => t.function.name)).toEqual(['delegate_task', 'delegate_parallel']);
    expect(tools[0]?.function.description).toContain('- remote: shouts');
  }, 60_000);

  it('goes through the SSRF guard: a loopback agent without allowPrivate is refused before any request', async () => {
    remote = await startSdkA2AServer(shouting);
    const file = await coordinator(`  - kind: a2a
    name: remote
    url: ${remote.url}`);
    const [result] = (await results(file)) as { ok: boolean; error?: string }[];
    expect(result?.ok).toBe(false);
    expect(result?.error).toMatch(/refused http:\/\/127\.0\.0\.1:\d+.*SSRF guard/);
    expect(remote.authorizations).toEqual([]);
  }, 60_000);

  it("refuses a card that sends the calls (and the headers) to another origin than the file's", async () => {
    remote = await startSdkA2AServer(shouting, () =>
      agentCardFor({ name: 'remote', url: 'http://127.0.0.2:9/a2a/jsonrpc' }),
    );
    const file = await coordinator(`  - kind: a2a
    name: remote
    url: ${remote.url}
    allowPrivate: [127.0.0.1, 127.0.0.2]
    headers: { Authorization: "Bearer s3cret" }`);
    const [result] = (await results(file)) as { ok: boolean; error?: string }[];
    expect(result?.ok).toBe(false);
    expect(result?.error).toContain('the agent card points at http://127.0.0.2:9');
  }, 60_000);

  it('is checked by validate: a bad url and an unknown key, at their places', async () => {
    const file = join(dir, 'agent.yaml');
    await writeFile(
      file,
      `name: coordinator
model: { id: c, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }
subAgents:
  - kind: a2a
    name: remote
    url: ftp://example.com/
    tools: []
`,
    );
    const report = await new DeclAgentBuilder().fromFile(file).use(a2aPlugin()).validate();
    const errors = report.errors.map(formatDiagnostic).map((m) => m.replace(`${dir}/`, ''));
    expect(errors).toEqual([
      expect.stringMatching(/^agent\.yaml:6:10 subAgents\[0\]\.url: url must be an http\(s\) URL/),
    ]);
    // A remote agent has no tools of ours: the key is unknown (an error in strict mode).
    const warnings = report.warnings.map(formatDiagnostic).map((m) => m.replace(`${dir}/`, ''));
    expect(warnings).toEqual([expect.stringMatching(/^agent\.yaml:7:5 subAgents\[0\]\.tools/)]);
  });
});
