import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createMemoryIO } from '../memory-io.js';
import { ProgressBar } from '../render/progress-bar.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-index-'));
  await mkdir(join(dir, 'docs'));
  await mkdir(join(dir, 'notes'));
  await writeFile(join(dir, 'docs', 'a.md'), '# A\n\nAlpha text about apples.\n');
  await writeFile(join(dir, 'docs', 'b.txt'), 'Bravo text about bananas.\n');
  await writeFile(join(dir, 'notes', 'home.md'), 'Start at [[other]].\n');
  await writeFile(join(dir, 'notes', 'other.md'), 'Other page.\n');
  await writeFile(
    join(dir, 'agent.yaml'),
    [
      'name: helper',
      'model: { id: m, provider: openai }',
      'contexts:',
      '  - kind: knowledge',
      '    name: docs',
      '    config: { source: docs }',
      '  - kind: wiki',
      '    name: notes',
      '    config: { source: notes }',
      '',
    ].join('\n'),
  );
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('raf index (the installed @raf/rag and @raf/wiki are registered)', () => {
  it('builds every index, then refreshes incrementally; inspect shows the index state', async () => {
    const before = createMemoryIO({ cwd: dir });
    expect(await main(['inspect', 'agent.yaml'], before.io)).toBe(0);
    expect(before.out()).toContain('  1. knowledge docs\n     store: ');
    expect(before.out()).toContain('built: false');
    expect(existsSync(join(dir, '.raf'))).toBe(false);

    const first = createMemoryIO({ cwd: dir });
    expect(await main(['index', 'agent.yaml'], first.io), first.err()).toBe(0);
    expect(first.out()).toMatch(
      /^knowledge docs: documents 2, chunks 2, added 2, updated 0, removed 0, unchanged 0, embedded 0, store .*docs\.db \(\d+ ms\)\n/,
    );
    expect(first.out()).toMatch(
      /\nwiki notes: pages 2, spaces 0, links 1, unresolvedLinks 0, layout markdown \(\d+ ms\)\n$/,
    );

    const again = createMemoryIO({ cwd: dir });
    expect(await main(['index', 'agent.yaml', '--json'], again.io)).toBe(0);
    const { contexts } = JSON.parse(again.out()) as { contexts: Record<string, unknown>[] };
    expect(contexts[0]).toMatchObject({
      kind: 'knowledge',
      name: 'docs',
      unchanged: 2,
      added: 0,
      embedded: 0,
    });
    expect(contexts[1]).toMatchObject({ kind: 'wiki', name: 'notes', pages: 2 });

    const after = createMemoryIO({ cwd: dir });
    expect(await main(['inspect', 'agent.yaml', '--json'], after.io)).toBe(0);
    const plan = JSON.parse(after.out()) as {
      contexts: { details?: Record<string, unknown> }[];
      tools: { name: string }[];
    };
    expect(plan.contexts[1]?.details).toMatchObject({
      built: true,
      documents: 2,
      chunks: 2,
      embeddingModel: null,
      lastBuild: expect.any(String),
    });
    expect(plan.contexts[2]?.details).toMatchObject({ pages: 2, links: 1 });
    expect(plan.tools.map((t) => t.name)).toEqual([
      'knowledge_search',
      'wiki_search',
      'wiki_page',
      'wiki_concepts',
    ]);
  });

  it('an agent without indexes says so; a missing file is a usage error', async () => {
    await writeFile(join(dir, 'plain.yaml'), 'name: plain\nmodel: { id: m, provider: openai }\n');
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['index', 'plain.yaml'], run.io)).toBe(0);
    expect(run.err()).toBe('raf: plain.yaml has no context with an index (kind: knowledge or wiki)\n');
    const none = createMemoryIO({ cwd: dir });
    expect(await main(['index'], none.io)).toBe(2);
  });
});

describe('ProgressBar', () => {
  it('draws on a terminal and clears its line at the end; prints nothing when piped', () => {
    let tty = '';
    const bar = new ProgressBar(
      { write: (t: string) => (tty += t), isTTY: true, columns: 80 },
      'knowledge docs',
    );
    bar.update({ phase: 'scan', done: 0, total: 4 });
    bar.update({ phase: 'done', done: 4, total: 4 });
    bar.done();
    expect(tty).toBe(
      '\r\x1b[2Kknowledge docs [------------------------] 0/4 \r\x1b[2Kknowledge docs [########################] 4/4 \r\x1b[2K',
    );
    let piped = '';
    const quiet = new ProgressBar({ write: (t: string) => (piped += t), isTTY: false }, 'x');
    quiet.update({ phase: 'done', done: 1, total: 1 });
    quiet.done();
    expect(piped).toBe('');
  });
});
