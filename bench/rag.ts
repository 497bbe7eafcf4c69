// Knowledge-base indexing and queries (@raf/rag): lexical on 10,000 documents (~100,000 chunks)
// against MiniSearch on the same chunks, and hybrid on 20,000 chunks with 384-d vectors from a
// deterministic embeddings server. Each contender runs in its own process.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddingsServer } from '@raf/rag/testing';
import { DOCS_PER_FOLDER, makeRagCorpus } from './lib/rag-corpus.js';
import type { RagChildRequest, RagChildResult } from './rag-child.js';

export interface RagBenchOptions {
  /** Documents of the lexical corpus (10,000; 10 chunks each). */
  docs: number;
  /** Documents indexed with vectors, whole folders of 1,000 (2,000: 20,000 chunks). */
  vectorDocs: number;
  queries: number;
}

export interface RagBenchResult {
  lexical: RagChildResult;
  minisearch: RagChildResult;
  hybrid: RagChildResult;
}

const CHUNK_SIZE = 128;

function runChild(request: RagChildRequest): Promise<RagChildResult> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./rag-child.ts', import.meta.url)), JSON.stringify(request)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`rag ${request.engine} child exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) as string) as RagChildResult);
    });
  });
}

export async function runRagBench(options: RagBenchOptions): Promise<RagBenchResult> {
  const { root, folders, queries } = await makeRagCorpus(options.docs);
  const base = { root, chunkSize: CHUNK_SIZE, queries: queries.slice(0, options.queries), warmup: 20 };
  const store = (name: string) => join(tmpdir(), `raf-bench-rag-${options.docs}-${name}.db`);
  const lexical = await runChild({ ...base, engine: 'raf', folders, store: store('lexical') });
  const minisearch = await runChild({ ...base, engine: 'minisearch', folders, store: '' });
  const server = await startEmbeddingsServer({ dimension: 384 });
  try {
    const vectorFolders = folders.slice(0, Math.max(1, Math.ceil(options.vectorDocs / DOCS_PER_FOLDER)));
    const hybrid = await runChild({
      ...base,
      engine: 'raf',
      folders: vectorFolders,
      store: store('hybrid'),
      embeddingsURL: server.baseURL,
    });
    return { lexical, minisearch, hybrid };
  } finally {
    await server.close();
  }
}
