// One contender of the RAG benchmark in its own process: `rag-child.ts '<RagChildRequest JSON>'`
// prints one RagChildResult (so each one's peak RSS is its own).
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { chunkMarkdown, KnowledgeBase, OpenAIEmbeddings } from '@raf/rag';
import { glob } from 'tinyglobby';

export interface RagChildRequest {
  engine: 'raf' | 'minisearch';
  root: string;
  folders: string[];
  store: string;
  chunkSize: number;
  embeddingsURL?: string;
  queries: string[];
  warmup: number;
}

export interface RagChildResult {
  documents: number;
  chunks: number;
  indexMs: number;
  indexDocsPerSec: number;
  /** Peak RSS of the process up to the end of indexing. */
  indexPeakRssMiB: number;
  queryP50Ms: number;
  queryP95Ms: number;
}

const request = JSON.parse(process.argv[2] ?? '{}') as RagChildRequest;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

async function timeQueries(
  search: (q: string) => Promise<unknown> | unknown,
): Promise<{ p50: number; p95: number }> {
  for (const q of request.queries.slice(0, request.warmup)) await search(q);
  const times: number[] = [];
  for (const q of request.queries) {
    const started = performance.now();
    await search(q);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

let result: RagChildResult;
if (request.engine === 'raf') {
  await rm(request.store, { force: true });
  await rm(`${request.store}-wal`, { force: true });
  await rm(`${request.store}-shm`, { force: true });
  const kb = await KnowledgeBase.open({
    sources: request.folders,
    baseDir: request.root,
    store: request.store,
    chunkSize: request.chunkSize,
    chunkOverlap: 16,
    ...(request.embeddingsURL && {
      embeddings: new OpenAIEmbeddings({
        model: 'hashed-384',
        baseURL: request.embeddingsURL,
        batchSize: 256,
      }),
    }),
  });
  const started = performance.now();
  const report = await kb.refresh();
  const indexMs = performance.now() - started;
  const indexPeakRssMiB = process.resourceUsage().maxRSS / 1024;
  const { p50, p95 } = await timeQueries((q) => kb.search(q, { topK: 5 }));
  kb.close();
  result = {
    documents: report.documents,
    chunks: report.chunks,
    indexMs,
    indexDocsPerSec: (report.documents / indexMs) * 1000,
    indexPeakRssMiB,
    queryP50Ms: p50,
    queryP95Ms: p95,
  };
} else {
  // The same files and the same chunks, in MiniSearch's in-memory index (BM25, no persistence).
  const { default: MiniSearch } = await import('minisearch');
  const index = new MiniSearch<{ id: number; text: string; heading: string }>({
    fields: ['text', 'heading'],
    storeFields: [],
  });
  const started = performance.now();
  const files = (
    await glob(
      request.folders.map((f) => `${f}/**/*.md`),
      { cwd: request.root },
    )
  ).sort();
  let id = 0;
  for (const file of files) {
    const text = await readFile(join(request.root, file), 'utf8');
    const chunks = chunkMarkdown(text, { chunkSize: request.chunkSize, chunkOverlap: 16 });
    index.addAll(chunks.map((c) => ({ id: id++, text: c.text, heading: c.headings.join(' > ') })));
  }
  const indexMs = performance.now() - started;
  const indexPeakRssMiB = process.resourceUsage().maxRSS / 1024;
  const { p50, p95 } = await timeQueries((q) => index.search(q).slice(0, 5));
  result = {
    documents: files.length,
    chunks: id,
    indexMs,
    indexDocsPerSec: (files.length / indexMs) * 1000,
    indexPeakRssMiB,
    queryP50Ms: p50,
    queryP95Ms: p95,
  };
}
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
