import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { DeclAgentBuilder } from '@raf/decl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ragPlugin } from './rag-plugin.js';
import { type EmbeddingsServer, startEmbeddingsServer } from './testing/embeddings-server.js';

let dir: string;
let model: MockModelServer | undefined;
let embeddings: EmbeddingsServer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-rag-plugin-'));
  await mkdir(join(dir, 'docs'));
  await writeFile(
    join(dir, 'docs', 'returns.md'),
    '# Returns\n\n## Refunds\n\nRefunds are paid within 14 days to the original card.\n',
  );
  await writeFile(
    join(dir, 'docs', 'shipping.md'),
    '# Shipping\n\nParcels leave the warehouse every weekday at 4 pm.\n',
  );
});
afterEach(async () => {
  await model?.close();
  await embeddings?.close();
  model = embeddings = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function agentFile(config: string, modelBlock = 'model: { id: m, provider: openai }'): Promise<string> {
  const file = join(dir, 'agent.yaml');
  await writeFile(
    file,
    `name: shop\n${modelBlock}\ninstructions: Answer from the docs.\ncontexts:\n  - kind: knowledge\n    name: docs\n${config}`,
  );
  return file;
}

const builder = (file: string) => new DeclAgentBuilder().fromYamlFile(file).use(ragPlugin());

describe('kind: knowledge from YAML', () => {
  it('without the plugin, the error names the package', async () => {
    const file = await agentFile('    config: { source: docs }\n');
    const report = await new DeclAgentBuilder().fromYamlFile(file).validate();
    expect(report.errors.map((e) => e.message)).toEqual([
      'context kind "knowledge" needs @raf/rag (pnpm add @raf/rag; builder.use(ragPlugin()))',
    ]);
  });

  it('wrong types are errors at file:line:column; unknown keys warn; snake_case is accepted', async () => {
    const file = await agentFile(
      [
        '    config:',
        '      source: docs',
        '      chunk_size: big',
        '      chunk_overlap: 20',
        '      top_kk: 3',
        '      embeddings: { model: e, base_url: "not a url" }',
        '',
      ].join('\n'),
    );
    const report = await builder(file).validate();
    expect(report.errors.map((e) => [e.line, e.column, e.path, e.message])).toEqual([
      [9, 19, 'contexts[0].config.chunk_size', 'Invalid input: expected number, received string'],
      [12, 19, expect.stringMatching(/^contexts\[0\]\.config\.embeddings/), 'Invalid URL'],
    ]);
    expect(report.warnings.map((w) => [w.line, w.message])).toEqual([
      [11, expect.stringContaining("unknown key 'top_kk' (did you mean 'topK'?)")],
    ]);
  });

  it('a source that does not exist warns (an error in strict mode)', async () => {
    const file = await agentFile('    config: { source: [docs, missing, "pages/*.md"] }\n');
    const report = await builder(file).validate();
    expect(report.warnings.map((w) => [w.line, w.message])).toEqual([
      [5, expect.stringMatching(/^knowledge 'docs': source 'missing' does not exist/)],
      [5, "knowledge 'docs': source 'pages/*.md' matches no file"],
    ]);
    const strict = await builder(file).strictMode().validate();
    expect(strict.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/source 'missing' does not exist.*; source 'pages\/\*\.md' matches no file$/),
    ]);
  });

  it('an overlap as large as the chunk is an error; a missing source warns and skips (upstream behaviour)', async () => {
    const bad = await agentFile('    config: { source: docs, chunkSize: 64, chunkOverlap: 64 }\n');
    expect((await builder(bad).validate()).errors.map((e) => e.message)).toEqual([
      expect.stringContaining('must be smaller than chunkSize (64)'),
    ]);
    const none = await agentFile('    config: {}\n');
    const report = await builder(none).validate();
    expect(report.ok).toBe(true);
    expect(report.warnings.map((w) => w.message)).toEqual([
      "knowledge 'docs' has no config.source; it is skipped",
    ]);
  });

  it('validate and inspect create nothing; inspect lists knowledge_search as injected, with the index state', async () => {
    const file = await agentFile('    config: { source: docs }\n');
    expect((await builder(file).validate()).ok).toBe(true);
    const plan = await builder(file).explain();
    expect(existsSync(join(dir, '.raf'))).toBe(false);
    expect(plan.tools).toEqual([
      expect.objectContaining({
        name: 'knowledge_search',
        source: 'injected',
        context: 'docs',
        gated: false,
        executionMode: 'parallel',
      }),
    ]);
    expect(plan.toolLoop).toBe(true);
    expect(plan.contexts[1]).toEqual({
      kind: 'knowledge',
      name: 'docs',
      provider: 'docs',
      order: 1,
      details: { store: join(dir, '.raf/knowledge/docs.db'), built: false, embeddingModel: null },
    });

    // After a build (what `raf index` does), inspect reads the index as it is.
    const agent = await builder(file).build();
    const provider = agent.contextProviders.find((p) => p.kind === 'knowledge');
    const report = await provider?.refreshIndex?.();
    expect(report).toMatchObject({ documents: 2, added: 2 });
    const after = await builder(file).explain();
    expect(after.contexts[1]?.details).toMatchObject({
      built: true,
      documents: 2,
      chunks: 2,
      vectors: 0,
      lastBuild: expect.any(String),
    });
  });

  it('knowledge_search is injected, never routed to a workspace (rule 2)', async () => {
    const file = join(dir, 'agent.yaml');
    await writeFile(
      file,
      [
        'name: shop',
        'model: { id: m, provider: openai }',
        'contexts:',
        '  - kind: workspace',
        '    config: { root: docs, policy: deny }',
        '  - kind: knowledge',
        '    name: docs',
        '    config: { source: docs }',
        'tools:',
        '  - kind: file',
        '    name: read_file',
        '',
      ].join('\n'),
    );
    const plan = await builder(file).explain();
    expect(plan.tools.map((t) => [t.name, t.source, t.workspace, t.context ?? null])).toEqual([
      ['read_file', 'workspace', 'workspace', null],
      ['knowledge_search', 'injected', null, 'docs'],
    ]);
  });

  it('a run injects the passages for the latest message and answers knowledge_search calls (hybrid on an embeddings server)', async () => {
    embeddings = await startEmbeddingsServer();
    model = await startMockModelServer({
      turns: [
        { toolCalls: [{ name: 'knowledge_search', arguments: { query: 'warehouse parcels weekday' } }] },
        { text: 'Refunds take 14 days.' },
      ],
    });
    const file = await agentFile(
      `    config: { source: docs, embeddings: { model: hashed, baseURL: "${embeddings.baseURL}" }, topK: 1 }\n`,
      `model: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" } }`,
    );
    const agent = await builder(file).build();
    const answer = await agent.generate('How long do refunds take?');
    expect(answer.text).toBe('Refunds take 14 days.');
    const [first, second] = model.requests.map(
      (r) =>
        r.body as { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] },
    );
    const system = first?.messages[0]?.content ?? '';
    expect(system).toContain('## Knowledge: docs');
    expect(system).toContain('[1] docs/returns.md — Returns > Refunds\nRefunds are paid within 14 days');
    expect(system).not.toContain('warehouse');
    expect(first?.tools?.map((t) => t.function.name)).toEqual(['knowledge_search']);
    const toolResult = JSON.parse(second?.messages.at(-1)?.content ?? '{}') as {
      ok: boolean;
      data: { results: { source: string }[] };
    };
    expect(toolResult.ok).toBe(true);
    expect(toolResult.data.results[0]?.source).toBe('docs/shipping.md');
    expect(embeddings.inputs).toBeGreaterThanOrEqual(2); // the two documents, then the queries
    expect(existsSync(join(dir, '.raf/knowledge/docs.db'))).toBe(true);
  });
});
