import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userMessage } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIEmbeddings } from '../embed/openai-embeddings.js';
import { startEmbeddingsServer } from '../testing/embeddings-server.js';
import { KnowledgeContextProvider } from './knowledge-context-provider.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-rag-provider-'));
  await mkdir(join(dir, 'docs'));
  await writeFile(join(dir, 'docs', 'returns.md'), '# Returns\n\nRefunds are paid within 14 days.\n');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const invoking = (text: string) => ({
  agentName: 'a',
  session: {} as never,
  messages: [],
  input: [userMessage(text)],
  signal: new AbortController().signal,
});

describe('KnowledgeContextProvider', () => {
  it('an embeddings outage falls back to BM25 with warnings, instead of losing the knowledge base', async () => {
    const server = await startEmbeddingsServer();
    const embeddings = new OpenAIEmbeddings({
      model: 'hashed',
      baseURL: server.baseURL,
      retry: { maxRetries: 0 },
    });
    const provider = new KnowledgeContextProvider({
      name: 'docs',
      sources: ['docs'],
      baseDir: dir,
      store: ':memory:',
      embeddings,
    });
    const first = await provider.onInvoking(invoking('how long do refunds take'));
    expect(first.warnings).toBeUndefined();
    expect(first.instructions).toContain('[1] docs/returns.md — Returns');

    await server.close();
    await writeFile(join(dir, 'docs', 'shipping.md'), '# Shipping\n\nParcels leave every weekday.\n');
    const second = await provider.onInvoking(invoking('how long do refunds take'));
    expect(second.instructions).toContain('[1] docs/returns.md — Returns');
    expect(second.warnings).toEqual([
      expect.stringMatching(
        /^knowledge 'docs': the index was not brought up to date \(embeddings request to .* failed: .*\); searching what it holds$/,
      ),
      expect.stringMatching(/^knowledge 'docs': embeddings unavailable \(.*\); lexical results only$/),
    ]);
    const call = await provider.tools[0]?.execute(
      { query: 'refunds' },
      { signal: new AbortController().signal, callId: 'c1' },
    );
    expect(call).toMatchObject({
      ok: true,
      data: {
        warning: expect.stringContaining('lexical results only'),
        results: [{ source: 'docs/returns.md' }],
      },
    });
    await provider.close();
  });

  it('topK 0 injects nothing but still offers the tool', async () => {
    const provider = new KnowledgeContextProvider({
      sources: ['docs'],
      baseDir: dir,
      store: ':memory:',
      topK: 0,
    });
    const result = await provider.onInvoking(invoking('refunds'));
    expect(result).toEqual({ tools: [provider.tools[0]] });
    expect(provider.name).toBe('knowledge');
    await provider.close();
  });
});
