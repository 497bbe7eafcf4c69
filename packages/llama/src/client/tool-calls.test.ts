import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentResponseUpdate, defineTool, userMessage } from '@raf/core';
import { AgentBuilder } from '@raf/framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedToolCallModelBytes } from '../test-support/scripted-model.js';
import { type LlamaChatClient, loadLlamaChatClient } from './llama-chat-client.js';

let dir: string;
let client: LlamaChatClient;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-llama-tools-'));
  const modelPath = join(dir, 'scripted.gguf');
  await writeFile(
    modelPath,
    scriptedToolCallModelBytes({
      tool: 'lookup',
      // The grammar makes every property required: an optional one the model has nothing for is null.
      argumentPieces: ['{"query":▁"', 'tea', '",▁"limit":▁', 'null', '}'],
      answer: 'done',
    }),
  );
  client = await loadLlamaChatClient({ modelPath, threads: 1, modelOptions: { maxTokens: 40 } });
});
afterAll(async () => {
  await client?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const lookup = {
  name: 'lookup',
  description: 'Looks something up in the notes',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string' }, limit: { type: 'integer' } },
    required: ['query'],
  },
};

/** A model whose greedy output is `||call: lookup({"query": "tea", "limit": null})`, then `done` after the result. */
describe('tool calls through node-llama-cpp function calling (a scripted GGUF model)', () => {
  it('streams the call as start, argument chunks and end, and finishes with toolCalls', async () => {
    const updates: AgentResponseUpdate[] = [];
    for await (const update of client.run([userMessage('What do I like?')], { tools: [lookup] }))
      updates.push(update);
    const callId = updates[0]?.type === 'tool-call-start' ? updates[0].callId : 'missing';
    expect(callId).toMatch(/^call_[0-9a-f]{24}$/);
    const args = updates.filter((u) => u.type === 'tool-call-args');
    expect(updates).toEqual([
      { type: 'tool-call-start', callId, name: 'lookup' },
      ...args,
      // The null the grammar made the model write for the absent optional `limit` is gone.
      { type: 'tool-call-end', callId, name: 'lookup', arguments: '{"query":"tea"}' },
      { type: 'usage', usage: expect.objectContaining({ completionTokens: expect.any(Number) }) },
      { type: 'finish', reason: 'toolCalls', usage: expect.any(Object) },
    ]);
    // The raw chunks are what the model generated, in order.
    expect(args.every((u) => u.type === 'tool-call-args' && u.callId === callId)).toBe(true);
    expect(JSON.parse(args.map((u) => (u.type === 'tool-call-args' ? u.delta : '')).join(''))).toEqual({
      query: 'tea',
      limit: null,
    });
  });

  it('the framework tool loop runs the call and the model answers from its result', async () => {
    const calls: unknown[] = [];
    const tool = defineTool({
      name: 'lookup',
      description: 'Looks something up in the notes',
      parameters: z.object({ query: z.string(), limit: z.number().int().optional() }),
      execute: async (args) => {
        calls.push(args);
        return { ok: true, data: 'the user likes green tea' };
      },
    });
    const agent = new AgentBuilder('local').chatClient(client).withTool(tool).build();
    const response = await agent.generate('What do I like?');
    expect(calls).toEqual([{ query: 'tea' }]);
    expect(response.toolResults).toEqual([
      { callId: expect.any(String), name: 'lookup', result: { ok: true, data: 'the user likes green tea' } },
    ]);
    expect(response.text).toBe('done');
    expect(response.finishReason).toBe('stop');
    // The second request repeated the first one's prompt: only the new part was evaluated.
    expect(response.usage?.promptCacheHitTokens).toBeGreaterThan(0);
  });

  it("toolChoice 'none' offers no function: the same output is only text", async () => {
    const updates: AgentResponseUpdate[] = [];
    for await (const update of client.run([userMessage('What do I like?')], {
      tools: [lookup],
      toolChoice: 'none',
    }))
      updates.push(update);
    expect(updates.filter((u) => u.type.startsWith('tool-'))).toEqual([]);
    expect(updates.map((u) => (u.type === 'text-delta' ? u.delta : '')).join('')).toBe(
      '||call: lookup({"query": "tea", "limit": null})',
    );
  });
});
