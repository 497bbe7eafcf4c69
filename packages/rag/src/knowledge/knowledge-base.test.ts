import { mkdtemp, readFile, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIEmbeddings } from '../embed/openai-embeddings.js';
import { makePdf } from '../test-support/make-pdf.js';
import { makeReadmeCorpus } from '../test-support/readme-corpus.js';
import { type EmbeddingsServer, startEmbeddingsServer } from '../testing/embeddings-server.js';
import { KnowledgeBase } from './knowledge-base.js';

let dir: string;
let server: EmbeddingsServer;
let readmes: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-rag-'));
  readmes = await makeReadmeCorpus(join(dir, 'docs'));
  await writeFile(
    join(dir, 'docs', 'tea.html'),
    `<html><head><title>Tea guide</title><script>var hidden = "porcupine"</script></head><body>
     <nav>Home</nav><h1>Tea guide</h1><h2>Oolong</h2><p>Oolong leaves are rolled and partly oxidised; brew them at 90 degrees.</p></body></html>`,
  );
  await writeFile(
    join(dir, 'docs', 'safari.pdf'),
    await makePdf('Safari notes', [
      ['Wildebeest cross the Mara river in August.'],
      ['Flamingos gather at Lake Nakuru.'],
    ]),
  );
  server = await startEmbeddingsServer();
}, 60_000);
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const embeddings = () => new OpenAIEmbeddings({ model: 'hashed-384', baseURL: server.baseURL });

describe('KnowledgeBase on a real docs tree (READMEs, html, pdf)', () => {
  it('indexes every file, then finds passages with source and heading by lexical, vector and hybrid search', async () => {
    expect(readmes.length).toBeGreaterThan(100);
    const kb = await KnowledgeBase.open({
      sources: ['docs'],
      baseDir: dir,
      store: join(dir, 'index.db'),
      embeddings: embeddings(),
    });
    const report = await kb.refresh();
    expect(report.failed).toEqual([]);
    expect(report.documents).toBe(readmes.length + 2);
    expect(report.added).toBe(readmes.length + 2);
    expect(report.embedded).toBe(report.chunks);
    expect(kb.stats()).toMatchObject({
      documents: readmes.length + 2,
      vectors: report.chunks,
      embeddingModel: 'hashed-384',
      dimension: 384,
    });

    for (const mode of ['lexical', 'vector', 'hybrid'] as const) {
      const [tea] = await kb.search('what temperature should oolong be brewed at', { mode, topK: 3 });
      expect({ mode, ...tea }).toMatchObject({
        mode,
        source: 'docs/tea.html',
        title: 'Tea guide',
        heading: 'Tea guide > Oolong',
      });
      const hits = await kb.search('when do wildebeest cross the river', { mode, topK: 3 });
      expect({ mode, ...hits[0] }).toMatchObject({
        mode,
        source: 'docs/safari.pdf',
        title: 'Safari notes',
        heading: 'page 1',
      });
    }
    // The script's text was never indexed.
    expect(await kb.search('porcupine', { mode: 'lexical' })).toEqual([]);
    const [client] = await kb.search('Anthropic Messages API streaming with retries', {
      mode: 'hybrid',
      topK: 1,
    });
    expect(client?.source).toBe('docs/raf-client.md');
    kb.close();
  });

  it('a second refresh reads nothing new; an edit re-embeds that file only; a deleted file leaves the index', async () => {
    const store = join(dir, 'incremental.db');
    const kb = await KnowledgeBase.open({
      sources: ['docs/*.md'],
      baseDir: dir,
      store,
      embeddings: embeddings(),
    });
    const first = await kb.refresh();
    server.reset();
    const again = await kb.refresh();
    expect(again).toMatchObject({
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: first.documents,
      embedded: 0,
    });
    expect(server.inputs).toBe(0);

    const file = join(dir, 'docs', 'semver.md');
    await writeFile(
      file,
      `${await readFile(file, 'utf8')}\n\n## Zanzibar\n\nA brand new section about zanzibar spices.\n`,
    );
    const edited = await kb.refresh();
    expect(edited).toMatchObject({ updated: 1, unchanged: first.documents - 1 });
    // Only chunks whose text changed are embedded again: the new section (and the old last chunk).
    expect(server.inputs).toBeGreaterThan(0);
    expect(server.inputs).toBeLessThanOrEqual(3);
    expect((await kb.search('zanzibar spices', { mode: 'lexical' }))[0]?.source).toBe('docs/semver.md');

    await unlink(file);
    const removed = await kb.refresh();
    expect(removed).toMatchObject({ removed: 1, documents: first.documents - 1 });
    expect(await kb.search('zanzibar', { mode: 'lexical' })).toEqual([]);
    kb.close();

    // The index lives on disk: a new process (here: a new handle) sees it as built.
    expect(await KnowledgeBase.inspect(store)).toMatchObject({
      documents: first.documents - 1,
      embeddingModel: 'hashed-384',
    });
  });

  it('lexical only without embeddings; vector search then is a clear error', async () => {
    const kb = await KnowledgeBase.open({
      sources: ['docs/tea.html', 'docs/safari.pdf'],
      baseDir: dir,
      store: ':memory:',
    });
    const report = await kb.refresh();
    expect(report).toMatchObject({ documents: 2, embedded: 0 });
    expect((await kb.search('flamingos lake'))[0]).toMatchObject({
      source: 'docs/safari.pdf',
      heading: 'page 2',
    });
    await expect(kb.search('flamingos', { mode: 'vector' })).rejects.toThrow(/needs an embedding model/);
    expect(kb.stats()).toMatchObject({ vectors: 0, embeddingModel: null });
    kb.close();
  });

  it('finds Chinese text by a Chinese question (CJK pairs, not whole sentences, are the terms)', async () => {
    await writeFile(
      join(dir, 'docs-zh.md'),
      '# 退货\n\n商品在收货后三十天内可以退货，退款在十四天内退回原支付方式。\n\n# 配送\n\n工作日下午两点前的订单当天发货。\n',
    );
    const kb = await KnowledgeBase.open({
      sources: ['docs-zh.md', 'docs/tea.html'],
      baseDir: dir,
      store: ':memory:',
    });
    await kb.refresh();
    expect((await kb.search('退款需要多长时间？'))[0]).toMatchObject({
      source: 'docs-zh.md',
      heading: '退货',
    });
    expect((await kb.search('什么时候发货'))[0]).toMatchObject({ heading: '配送' });
    kb.close();
  });

  it('reports broken and missing sources without failing the rest; URLs are downloaded', async () => {
    await writeFile(join(dir, 'broken.pdf'), '%PDF-1.4 broken');
    const http = createServer((request, response) => {
      if (request.url === '/guide.md') {
        response.writeHead(200, { 'content-type': 'text/markdown' });
        response.end('# Remote guide\n\nKayaks need a spray deck in rough water.');
      } else {
        response.writeHead(404);
        response.end();
      }
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const kb = await KnowledgeBase.open({
        sources: [
          'broken.pdf',
          'missing.md',
          'nothing/*.md',
          `${base}/guide.md`,
          `${base}/gone.md`,
          'docs/tea.html',
        ],
        baseDir: dir,
        store: ':memory:',
        allowPrivate: ['127.0.0.1'], // the SSRF guard refuses loopback otherwise
      });
      const report = await kb.refresh();
      expect(report.documents).toBe(2);
      expect(report.failed.map((f) => f.source).sort()).toEqual(['broken.pdf', `${base}/gone.md`]);
      expect(report.problems).toEqual([
        expect.stringContaining("source 'missing.md' does not exist"),
        "source 'nothing/*.md' matches no file",
      ]);
      expect((await kb.search('spray deck kayak'))[0]).toMatchObject({
        source: `${base}/guide.md`,
        heading: 'Remote guide',
      });
      kb.close();
    } finally {
      http.close();
    }
  });

  it('a store file that is not SQLite is a clear error naming it', async () => {
    await writeFile(
      join(dir, 'not-a.db'),
      'hello, I am a text file and certainly no database at all'.repeat(100),
    );
    await expect(
      KnowledgeBase.open({ sources: [], baseDir: dir, store: join(dir, 'not-a.db') }),
    ).rejects.toThrow(/^knowledge store .*not-a\.db: file is not a database$/);
    expect(await KnowledgeBase.inspect(join(dir, 'not-a.db'))).toBeUndefined();
  });

  it('other chunk settings or another embedding model rebuild the index', async () => {
    const store = join(dir, 'settings.db');
    const open = (chunkSize: number) =>
      KnowledgeBase.open({ sources: ['docs/tea.html'], baseDir: dir, store, chunkSize, chunkOverlap: 10 });
    const a = await open(128);
    expect((await a.refresh()).added).toBe(1);
    expect((await a.refresh()).unchanged).toBe(1);
    a.close();
    const b = await open(256);
    expect((await b.refresh()).added).toBe(1);
    b.close();
  });

  it('a touched file (new mtime, same content) is hashed, not re-embedded', async () => {
    const kb = await KnowledgeBase.open({
      sources: ['docs/tea.html'],
      baseDir: dir,
      store: ':memory:',
      embeddings: embeddings(),
    });
    await kb.refresh();
    server.reset();
    const later = new Date(Date.now() + 5_000);
    await utimes(join(dir, 'docs', 'tea.html'), later, later);
    expect(await kb.refresh()).toMatchObject({ unchanged: 1, updated: 0, embedded: 0 });
    expect(server.requests).toBe(0);
    kb.close();
  });
});

describe('incremental re-index on 1,000 files', () => {
  it('touching one file of 1,000 re-embeds only that file’s chunks (counted on the embeddings server)', async () => {
    const root = join(dir, 'thousand');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(root, { recursive: true });
    const body = (i: number, extra = '') =>
      `# Note ${i}\n\n${`Paragraph one of note ${i} about subject ${i % 37}. `.repeat(6)}\n\n## Details\n\n${`Detail ${i} text. `.repeat(20)}${extra}\n`;
    await Promise.all(
      Array.from({ length: 1_000 }, (_, i) => writeFile(join(root, `note-${i}.md`), body(i))),
    );
    const kb = await KnowledgeBase.open({
      sources: ['thousand'],
      baseDir: dir,
      store: join(dir, 'thousand.db'),
      embeddings: embeddings(),
      chunkSize: 64,
      chunkOverlap: 8,
    });
    server.reset();
    const full = await kb.refresh();
    expect(full.documents).toBe(1_000);
    expect(server.inputs).toBe(full.chunks);

    await writeFile(join(root, 'note-500.md'), body(500, ' A changed ending.'));
    server.reset();
    const report = await kb.refresh();
    expect(report).toMatchObject({ updated: 1, unchanged: 999, added: 0, removed: 0 });
    const chunksOfFile = full.chunks / 1_000;
    expect(server.inputs).toBeGreaterThan(0);
    expect(server.inputs).toBeLessThanOrEqual(chunksOfFile);
    expect(server.texts.every((t) => t.includes('500'))).toBe(true);
    kb.close();
  }, 120_000);
});
