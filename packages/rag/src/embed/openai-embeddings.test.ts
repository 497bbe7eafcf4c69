import { CancelledError, ChatClientError } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type EmbeddingsServer, startEmbeddingsServer } from '../testing/embeddings-server.js';
import { hashedEmbedding } from '../testing/hashed-embedding.js';
import { OpenAIEmbeddings } from './openai-embeddings.js';

let server: EmbeddingsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const signal = () => new AbortController().signal;
const fast = { initialDelayMs: 5, maxDelayMs: 20 };

describe('OpenAIEmbeddings', () => {
  it('sends texts in batches and returns one unit vector per text, in order', async () => {
    server = await startEmbeddingsServer({ dimension: 16 });
    const model = new OpenAIEmbeddings({ model: 'hash', baseURL: server.baseURL, batchSize: 4 });
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}`);
    const vectors = await model.embed(texts, { signal: signal() });
    expect(server.requests).toBe(3);
    expect(server.texts).toEqual(texts);
    expect(vectors).toHaveLength(10);
    const expected = hashedEmbedding('text number 7', 16);
    expect([...(vectors[7] as Float32Array)].map((v) => v.toFixed(5))).toEqual(
      expected.map((v) => v.toFixed(5)),
    );
  });

  it('retries a 503 (honouring Retry-After) and then succeeds', async () => {
    server = await startEmbeddingsServer({ failFirst: 2, retryAfterSeconds: 0 });
    const model = new OpenAIEmbeddings({ model: 'hash', baseURL: server.baseURL, retry: fast });
    await expect(model.embed(['a'], { signal: signal() })).resolves.toHaveLength(1);
    expect(server.requests).toBe(3);
  });

  it('gives up after maxRetries with a ChatClientError naming the status', async () => {
    server = await startEmbeddingsServer({ failFirst: 10, failStatus: 429 });
    const model = new OpenAIEmbeddings({
      model: 'hash',
      baseURL: server.baseURL,
      retry: { ...fast, maxRetries: 1 },
    });
    const error = await model.embed(['a'], { signal: signal() }).catch((e: unknown) => e);
    expect(ChatClientError.isInstance(error) && error.status).toBe(429);
    expect(server.requests).toBe(2);
  });

  it('does not retry a 400', async () => {
    server = await startEmbeddingsServer({ failFirst: 10, failStatus: 400 });
    const model = new OpenAIEmbeddings({ model: 'hash', baseURL: server.baseURL, retry: fast });
    await expect(model.embed(['a'], { signal: signal() })).rejects.toThrow(/HTTP 400/);
    expect(server.requests).toBe(1);
  });

  it('a refused connection is retried, then reported', async () => {
    server = await startEmbeddingsServer();
    const baseURL = server.baseURL;
    await server.close();
    server = undefined;
    const model = new OpenAIEmbeddings({ model: 'hash', baseURL, retry: fast });
    await expect(model.embed(['a'], { signal: signal() })).rejects.toThrow(/embeddings request to .* failed/);
  });

  it('a cancelled signal stops the backoff with CancelledError', async () => {
    server = await startEmbeddingsServer({ failFirst: 10 });
    const model = new OpenAIEmbeddings({
      model: 'hash',
      baseURL: server.baseURL,
      retry: { initialDelayMs: 10_000 },
    });
    const controller = new AbortController();
    const pending = model.embed(['a'], { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await pending.catch((e: unknown) => e);
    expect(CancelledError.isInstance(error)).toBe(true);
  });
});
