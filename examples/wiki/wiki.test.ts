import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryIO, main } from '@raf/cli';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
let dir: string;
beforeEach(async () => {
  // A copy: the run writes a page into handbook/.
  dir = join(await mkdtemp(join(tmpdir(), 'raf-wiki-example-')), 'wiki');
  await cp(here, dir, { recursive: true, filter: (src) => !src.includes('node_modules') });
});
afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

describe('the wiki example', () => {
  it('runs offline on its recorded model: reads a page, writes a new linked page into the upstream layout', async () => {
    const run = createMemoryIO({ cwd: dir });
    const code = await main(
      [
        'run',
        'agent.yaml',
        '-i',
        'Write a deploy checklist page for the eng space, based on what the handbook says.',
      ],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    expect(run.err()).toBe(
      [
        '→ wiki_page {"page":"Release process"} ✓ done',
        '→ wiki_write {"page":"eng/deploy-checklist","title":"Deploy checklist","tags":["deploys"],"c… ✓ done',
        '',
      ].join('\n'),
    );
    expect(run.out()).toMatch(/^I wrote eng\/deploy-checklist/);
    expect(await readFile(join(dir, 'handbook/eng/deploy-checklist/content.md'), 'utf8')).toContain(
      '[[Release process]]',
    );
    expect(await readFile(join(dir, 'handbook/eng/deploy-checklist/_page.yaml'), 'utf8')).toMatch(
      /title: Deploy checklist/,
    );

    // The new page is in the graph: inspect counts its links.
    const inspect = createMemoryIO({ cwd: dir });
    expect(await main(['inspect', 'agent.yaml', '--json'], inspect.io)).toBe(0);
    const plan = JSON.parse(inspect.out()) as {
      contexts: { details?: Record<string, unknown> }[];
      tools: { name: string; executionMode: string }[];
    };
    expect(plan.contexts[1]?.details).toMatchObject({
      pages: 4,
      spaces: 2,
      links: 5,
      unresolvedLinks: 0,
      layout: 'upstream',
    });
    expect(plan.tools.map((t) => `${t.name}:${t.executionMode}`)).toEqual([
      'wiki_search:parallel',
      'wiki_page:parallel',
      'wiki_concepts:parallel',
      'wiki_write:sequential',
    ]);
  });
});
