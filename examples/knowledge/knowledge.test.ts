import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryIO, main } from '@raf/cli';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const question = 'How long is the warranty on a laptop battery, and how do I claim?';
let dir: string;
beforeEach(async () => {
  // A copy: the run writes its index under .raf/.
  dir = join(await mkdtemp(join(tmpdir(), 'raf-knowledge-')), 'knowledge');
  await cp(here, dir, {
    recursive: true,
    filter: (src) => !src.includes('node_modules') && !src.includes('.raf'),
  });
});
afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

describe('the knowledge example', () => {
  it('runs offline on its recorded model: passages injected, knowledge_search answered from the PDF', async () => {
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', question, '--json'], run.io), run.err()).toBe(0);
    const lines = run.lines();
    const result = lines.find((l) => l.type === 'tool-result') as {
      result: { ok: boolean; data: { results: { source: string; heading: string; text: string }[] } };
    };
    expect(result.result.ok).toBe(true);
    expect(result.result.data.results.slice(0, 2).map((r) => [r.source, r.heading])).toEqual([
      ['docs/warranty.pdf', 'page 2'],
      ['docs/warranty.pdf', 'page 1'],
    ]);
    expect(result.result.data.results[1]?.text).toContain('Batteries are covered for one year.');
    expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(existsSync(join(dir, '.raf/knowledge/help.db'))).toBe(true);
  });

  it('raf index builds the index once; inspect shows it', async () => {
    const index = createMemoryIO({ cwd: dir });
    expect(await main(['index', 'agent.yaml'], index.io), index.err()).toBe(0);
    expect(index.out()).toMatch(
      /^knowledge help: documents 3, chunks \d+, added 3, updated 0, removed 0, unchanged 0, embedded 0, /,
    );
    const again = createMemoryIO({ cwd: dir });
    expect(await main(['index', 'agent.yaml'], again.io)).toBe(0);
    expect(again.out()).toContain('added 0, updated 0, removed 0, unchanged 3');
    const inspect = createMemoryIO({ cwd: dir });
    expect(await main(['inspect', 'agent.yaml'], inspect.io)).toBe(0);
    expect(inspect.out()).toMatch(
      /1\. knowledge help\n {5}store: .*help\.db, documents: 3, chunks: \d+, vectors: 0, lastBuild: \S+, embeddingModel: null, dimension: null, built: true\n/,
    );
    expect(inspect.out()).toMatch(/knowledge_search +injected by help/);
  });
});
