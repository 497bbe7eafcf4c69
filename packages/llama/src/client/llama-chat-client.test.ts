import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentResponseUpdate,
  assistantMessage,
  CancelledError,
  ChatClientError,
  systemMessage,
  toolMessage,
  userMessage,
} from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadedModelCount } from '../model/model-cache.js';
import { tinyModelBytes } from '../testing/tiny-model.js';
import { type LlamaChatClient, loadLlamaChatClient } from './llama-chat-client.js';

let dir: string;
let modelPath: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-llama-')));
  modelPath = join(dir, 'tiny.gguf');
  await writeFile(modelPath, tinyModelBytes());
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// One thread: the CI machine has two cores shared with other work, and llama.cpp's threads spin.
const load = (extra: Partial<Parameters<typeof loadLlamaChatClient>[0]> = {}) =>
  loadLlamaChatClient({ modelPath, threads: 1, modelOptions: { maxTokens: 12 }, ...extra });

async function collect(stream: AsyncIterable<AgentResponseUpdate>): Promise<AgentResponseUpdate[]> {
  const updates: AgentResponseUpdate[] = [];
  for await (const update of stream) updates.push(update);
  return updates;
}

const textOf = (updates: AgentResponseUpdate[]) =>
  updates.map((u) => (u.type === 'text-delta' ? u.delta : '')).join('');

describe('LlamaChatClient on a generated GGUF model', () => {
  it('loads, streams text token by token, reports usage and the finish reason, and unloads', async () => {
    const client = await load();
    expect(loadedModelCount()).toBe(1);
    expect(client).toMatchObject({
      modelId: 'tiny',
      provider: 'llama',
      modelPath,
      modelMetadata: { contextWindowTokens: 8192, maxOutputTokens: 12 },
    });
    const batches: (readonly AgentResponseUpdate[])[] = [];
    for await (const batch of client.runBatches!([systemMessage('Be brief.'), userMessage('the memory')]))
      batches.push(batch);
    const updates = batches.flat();
    const deltas = updates.filter((u) => u.type === 'text-delta');
    expect(updates.map((u) => u.type)).toEqual([...deltas.map(() => 'text-delta'), 'usage', 'finish']);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((u) => u.delta.length > 0)).toBe(true);
    // Tokens reach the reader while the model still generates, not all at the end.
    expect(batches.filter((b) => b.some((u) => u.type === 'text-delta')).length).toBeGreaterThan(1);
    const usage = updates.at(-2);
    expect(usage).toEqual({
      type: 'usage',
      usage: { promptTokens: expect.any(Number), completionTokens: 12, totalTokens: expect.any(Number) },
    });
    if (usage?.type !== 'usage') throw new Error('no usage');
    expect(usage.usage.promptTokens).toBeGreaterThan(3);
    expect(usage.usage.totalTokens).toBe(usage.usage.promptTokens + 12);
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'length', usage: usage.usage });

    await client.dispose();
    expect(loadedModelCount()).toBe(0);
    await expect(collect(client.run([userMessage('again')]))).rejects.toThrow(
      'llama tiny: the model was unloaded (dispose() was called)',
    );
  });

  it('greedy decoding is deterministic; the second request reuses the shared prompt prefix', async () => {
    await using client = await load({ modelOptions: { maxTokens: 8, temperature: 0 } });
    const prompt = [systemMessage('You keep notes.'), userMessage('note the page index')];
    const first = await collect(client.run(prompt));
    const second = await collect(client.run(prompt));
    expect(textOf(first)).not.toBe('');
    expect(textOf(second)).toBe(textOf(first));
    const usage = second.find((u) => u.type === 'usage');
    expect(usage?.type === 'usage' && usage.usage.promptCacheHitTokens).toBeGreaterThan(0);
    // A request's own options win over the client's defaults.
    const short = await collect(client.run(prompt, { modelOptions: { maxTokens: 3 } }));
    expect(short.at(-1)).toMatchObject({ type: 'finish', reason: 'length', usage: { completionTokens: 3 } });
  });

  it('stops on abort with a CancelledError, and the next request runs', async () => {
    await using client = await load({ modelOptions: { maxTokens: 400 } });
    const controller = new AbortController();
    const seen: AgentResponseUpdate[] = [];
    const run = (async () => {
      for await (const update of client.run([userMessage('talk')], { signal: controller.signal })) {
        seen.push(update);
        if (seen.length === 2) controller.abort(new Error('user pressed ctrl-c'));
      }
    })();
    await expect(run).rejects.toSatisfy(
      (e) => CancelledError.isInstance(e) && (e as Error).message === 'llama tiny cancelled',
    );
    // The generation stopped right away: far fewer than the 400 tokens it was allowed.
    expect(seen.length).toBeLessThan(50);
    expect(seen.every((u) => u.type === 'text-delta')).toBe(true);

    const aborted = AbortSignal.abort();
    await expect(collect(client.run([userMessage('x')], { signal: aborted }))).rejects.toSatisfy(
      CancelledError.isInstance,
    );
    const after = await collect(client.run([userMessage('x')], { modelOptions: { maxTokens: 4 } }));
    expect(after.at(-1)).toMatchObject({ type: 'finish', reason: 'length' });
  });

  it('a reader that stops early ends the generation; concurrent requests take turns', async () => {
    await using client = await load({ modelOptions: { maxTokens: 400 } });
    for await (const update of client.run([userMessage('a')])) {
      expect(update.type).toBe('text-delta');
      break;
    }
    const [a, b] = await Promise.all([
      collect(client.run([userMessage('one')], { modelOptions: { maxTokens: 5 } })),
      collect(client.run([userMessage('two')], { modelOptions: { maxTokens: 6 } })),
    ]);
    expect(a.at(-1)).toMatchObject({ type: 'finish', reason: 'length', usage: { completionTokens: 5 } });
    expect(b.at(-1)).toMatchObject({ type: 'finish', reason: 'length', usage: { completionTokens: 6 } });
  });

  it('dispose during a request ends it, even when the reader stopped pulling', async () => {
    const client = await load({ modelOptions: { maxTokens: 400 } });
    const reader = client.run([userMessage('talk')])[Symbol.asyncIterator]();
    expect((await reader.next()).value).toMatchObject({ type: 'text-delta' });
    await client.dispose();
    expect(loadedModelCount()).toBe(0);
    const rest: AgentResponseUpdate[] = [];
    for (let next = await reader.next(); !next.done; next = await reader.next()) rest.push(next.value);
    expect(rest.length).toBeLessThan(50);
    expect(rest.slice(-2)).toEqual([
      {
        type: 'error',
        code: 'RAF_CHAT_CLIENT',
        message: 'llama tiny: the model was unloaded during the request',
      },
      { type: 'finish', reason: 'other' },
    ]);
  });

  it('clients of one file share its weights; the last dispose unloads them', async () => {
    const a = await load();
    const b = await load({ contextSize: 256, modelId: 'notes' });
    expect(loadedModelCount()).toBe(1);
    expect(b.modelMetadata).toEqual({ contextWindowTokens: 256, maxOutputTokens: 12 });
    await a.dispose();
    expect(loadedModelCount()).toBe(1);
    expect((await collect(b.run([userMessage('hi')]))).at(-1)).toMatchObject({ type: 'finish' });
    await b.dispose();
    await b.dispose();
    expect(loadedModelCount()).toBe(0);
  });

  it('accepts a conversation with tool calls and their results, and offers tools to the model', async () => {
    await using client = await load({ modelOptions: { maxTokens: 6 } });
    const tools = [
      {
        name: 'memory_recall',
        description: 'Search the memory',
        parameters: {
          type: 'object',
          properties: { query: { type: 'string' }, limit: { type: 'integer' } },
          required: ['query'],
        },
      },
    ];
    const updates = await collect(
      client.run(
        [
          systemMessage('You remember things.'),
          userMessage('What does the user like?'),
          assistantMessage('', [{ id: 'c1', name: 'memory_recall', arguments: '{"query":"likes"}' }]),
          toolMessage('{"ok":true,"data":"tea"}', 'c1'),
        ],
        { tools },
      ),
    );
    expect(updates.at(-1)).toMatchObject({ type: 'finish' });
    expect(updates.filter((u) => u.type === 'usage')).toHaveLength(1);
  });

  it('a model that cannot load is a ChatClientError naming the file and the cause', async () => {
    const truncated = join(dir, 'truncated.gguf');
    const bytes = tinyModelBytes();
    await writeFile(truncated, bytes.subarray(0, bytes.length / 2));
    const garbage = join(dir, 'garbage.gguf');
    await writeFile(garbage, 'not a model');
    const failure = (path: string) =>
      loadLlamaChatClient({ modelPath: path, threads: 1 }).then(
        () => undefined,
        (error: unknown) =>
          ChatClientError.isInstance(error) ? error.message : `not a ChatClientError: ${error}`,
      );
    expect(await failure(garbage)).toBe(
      `cannot load the model ${garbage}: Invalid GGUF magic. Expected "GGUF" but got "not ".`,
    );
    // llama.cpp's own reason comes through its log, which a loaded machine may deliver late.
    expect(await failure(truncated)).toMatch(
      new RegExp(
        `^cannot load the model ${truncated}: Failed to load model( \\(llama\\.cpp: .*data is not within the file bounds.*\\))?$`,
      ),
    );
    expect(await failure(join(dir, 'missing.gguf'))).toMatch(
      /^cannot load the model .*missing\.gguf: ENOENT/,
    );
    expect(loadedModelCount()).toBe(0);
  });
});

describe.runIf(process.env.RAF_LLAMA_MODEL)('LlamaChatClient on a real model (RAF_LLAMA_MODEL)', () => {
  let client: LlamaChatClient;
  beforeAll(async () => {
    client = await loadLlamaChatClient({
      modelPath: process.env.RAF_LLAMA_MODEL as string,
      contextSize: 4096,
      modelOptions: { temperature: 0, maxTokens: 256 },
    });
  }, 300_000);
  afterAll(() => client?.dispose());

  it('calls a tool through the grammar, with arguments that fit its schema', async () => {
    const tools = [
      {
        name: 'get_weather',
        description: 'The current weather in a city',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string', description: 'City name' }, unit: { enum: ['c', 'f'] } },
          required: ['city'],
        },
      },
    ];
    const updates = await collect(
      client.run([userMessage('What is the weather in Paris right now? Use the tool.')], { tools }),
    );
    const end = updates.find((u) => u.type === 'tool-call-end');
    expect(end).toMatchObject({ type: 'tool-call-end', name: 'get_weather' });
    if (end?.type !== 'tool-call-end') throw new Error('no tool call');
    expect(JSON.parse(end.arguments)).toMatchObject({ city: expect.stringMatching(/paris/i) });
    const start = updates.findIndex((u) => u.type === 'tool-call-start' && u.callId === end.callId);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(updates.at(-1)).toMatchObject({ type: 'finish', reason: 'toolCalls' });
  }, 300_000);
});
