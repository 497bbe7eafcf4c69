import { describe, expect, it } from 'vitest';
import type { AgentResponseUpdate } from '../updates/agent-response-update.js';
import type { IChatClient } from './chat-client.js';
import { flattenBatches, updateBatches } from './update-batches.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('flattenBatches', () => {
  it('yields every item in order and skips empty batches', async () => {
    async function* batches() {
      yield [1, 2];
      yield [];
      yield [3];
    }
    expect(await collect(flattenBatches(batches()))).toEqual([1, 2, 3]);
  });

  it('runs the source finally block when the consumer stops early', async () => {
    const events: string[] = [];
    async function* batches() {
      try {
        yield [1, 2];
        yield [3];
      } finally {
        events.push('closed');
      }
    }
    for await (const item of flattenBatches(batches())) {
      events.push(String(item));
      if (item === 1) break;
    }
    expect(events).toEqual(['1', 'closed']);
  });

  it('passes a source error to the consumer after the items before it', async () => {
    async function* batches(): AsyncGenerator<number[]> {
      yield [1];
      throw new Error('broken');
    }
    const seen: number[] = [];
    await expect(async () => {
      for await (const item of flattenBatches(batches())) seen.push(item);
    }).rejects.toThrow('broken');
    expect(seen).toEqual([1]);
  });
});

describe('updateBatches', () => {
  const finish: AgentResponseUpdate = { type: 'finish', reason: 'stop' };
  const text: AgentResponseUpdate = { type: 'text-delta', delta: 'hi' };

  it('uses runBatches when the client has it', async () => {
    const client: IChatClient = {
      modelId: 'm',
      run: () => {
        throw new Error('run must not be called');
      },
      async *runBatches() {
        yield [text, finish];
      },
    };
    expect(await collect(updateBatches(client, []))).toEqual([[text, finish]]);
  });

  it('falls back to run, one update per batch', async () => {
    const client: IChatClient = {
      modelId: 'm',
      async *run() {
        yield text;
        yield finish;
      },
    };
    expect(await collect(updateBatches(client, []))).toEqual([[text], [finish]]);
  });
});
