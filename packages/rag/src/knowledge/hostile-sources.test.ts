import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expandSources } from '../source/expand-sources.js';
import { paragraphsHtml, pdfBomb } from '../test-support/hostile-documents.js';
import { makePdf } from '../test-support/make-pdf.js';
import { KnowledgeBase } from './knowledge-base.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-hostile-rag-'));
  await mkdir(join(dir, 'docs'));
  await mkdir(join(dir, 'outside'));
  await writeFile(join(dir, 'docs', 'real.md'), '# Real\n\nOolong tea is brewed at ninety degrees.\n');
  await writeFile(join(dir, 'outside', 'secret.md'), '# Secret\n\nthe launch code is zebra forty two\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = (sources: string[], extra: Partial<Parameters<typeof KnowledgeBase.open>[0]> = {}) =>
  KnowledgeBase.open({ sources, baseDir: dir, store: join(dir, 'index.db'), ...extra });

describe('knowledge sources with planted links and FIFOs', () => {
  it('a folder source follows no link: a linked file and a linked folder are not indexed nor found', async () => {
    await symlink('/etc/passwd', join(dir, 'docs', 'passwd.txt'));
    await symlink(join(dir, 'outside'), join(dir, 'docs', 'linked'));
    const kb = await open(['docs']);
    const report = await kb.refresh();
    expect(report.documents).toBe(1);
    expect(report.problems.join('\n')).toMatch(/passwd\.txt is a symbolic link/);
    expect(await kb.search('root bin bash nologin')).toEqual([]);
    expect(await kb.search('launch code zebra')).toEqual([]);
    expect((await kb.search('oolong'))[0]?.source).toBe('docs/real.md');
    kb.close();
  });

  it('a glob source indexes no linked file it matches, nor anything in a linked folder', async () => {
    await symlink(join(dir, 'outside', 'secret.md'), join(dir, 'docs', 'leak.md'));
    await symlink(join(dir, 'outside'), join(dir, 'docs', 'linked'));
    const kb = await open(['docs/**/*.md']);
    const report = await kb.refresh();
    expect(report.documents).toBe(1);
    expect(report.failed.map((f) => f.source)).not.toContain('docs/linked/secret.md');
    expect(await kb.search('launch code zebra')).toEqual([]);
    kb.close();
  });

  it('a source folder that is itself a link, or lies below one, is refused: named, globbed or as a file', async () => {
    await mkdir(join(dir, 'docs', 'sub'));
    await symlink(join(dir, 'outside'), join(dir, 'docs', 'handbook'));
    await symlink(join(dir, 'outside'), join(dir, 'docs', 'sub', 'deeper'));
    const sources = ['docs/handbook', './docs/handbook/', 'docs/handbook/*.md', 'docs/handbook/secret.md'];
    const kb = await open([...sources, 'docs/sub/deeper/**/*.md', 'docs/real.md']);
    const report = await kb.refresh();
    expect(report.documents).toBe(1);
    expect(report.problems).toEqual([
      ...sources.map(
        (s) =>
          `source '${s}': ${join(dir, 'docs', 'handbook')} is a symbolic link (not followed); not indexed`,
      ),
      `source 'docs/sub/deeper/**/*.md': ${join(dir, 'docs', 'sub', 'deeper')} is a symbolic link (not followed); not indexed`,
    ]);
    expect(await kb.search('launch code zebra')).toEqual([]);
    expect((await kb.search('oolong'))[0]?.source).toBe('docs/real.md');
    kb.close();
    // A folder outside the agent's folder may be reached through links above it, not be one.
    await symlink(join(dir, 'outside'), join(dir, 'elsewhere'));
    const { problems } = await expandSources([join(dir, 'elsewhere')], join(dir, 'docs'));
    expect(problems).toEqual([
      `source '${join(dir, 'elsewhere')}': ${join(dir, 'elsewhere')} is a symbolic link (not followed); not indexed`,
    ]);
    const fine = await expandSources([join(dir, 'outside')], join(dir, 'docs'));
    expect(fine.problems).toEqual([]);
    expect(fine.refs.map((r) => r.id)).toEqual([join(dir, 'outside', 'secret.md')]);
  });

  it('a FIFO among the sources hangs nothing', async () => {
    execFileSync('mkfifo', [join(dir, 'docs', 'pipe.md')]);
    const started = Date.now();
    const folder = await open(['docs']);
    expect((await folder.refresh()).documents).toBe(1);
    folder.close();
    const named = await open(['docs/pipe.md'], { store: join(dir, 'named.db') });
    const report = await named.refresh();
    expect(report.failed[0]?.error).toMatch(/not a regular file/);
    named.close();
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('per-document budgets', () => {
  it('an HTML page of 100,000 paragraphs is indexed in linear time', async () => {
    await writeFile(join(dir, 'docs', 'many.html'), paragraphsHtml(100_000));
    const kb = await open(['docs/many.html']);
    const started = Date.now();
    const report = await kb.refresh();
    const elapsed = Date.now() - started;
    expect(report.failed).toEqual([]);
    expect(report.documents).toBe(1);
    expect((await kb.search('para 99999'))[0]?.source).toBe('docs/many.html');
    expect(elapsed).toBeLessThan(30_000);
    kb.close();
  }, 120_000);

  it('a PDF that inflates to 151 MB is refused at once, naming the budget; the rest is indexed', async () => {
    await writeFile(join(dir, 'docs', 'bomb.pdf'), pdfBomb(151 * 1024 * 1024));
    const kb = await open(['docs']);
    const started = Date.now();
    const report = await kb.refresh();
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(report.failed).toEqual([
      { source: 'docs/bomb.pdf', error: expect.stringMatching(/inflatedBytes/) },
    ]);
    expect(report.documents).toBe(1);
    kb.close();
  }, 120_000);

  it('a PDF over the page budget is refused; one within it is read', async () => {
    await writeFile(join(dir, 'docs', 'three.pdf'), await makePdf('Three', [['one'], ['two'], ['three']]));
    const strict = await open(['docs/three.pdf'], { documentLimits: { pages: 2 } });
    expect((await strict.refresh()).failed[0]?.error).toMatch(/3 pages, over the 2-page limit/);
    strict.close();
    const lax = await open(['docs/three.pdf'], { store: join(dir, 'lax.db'), documentLimits: { pages: 3 } });
    expect((await lax.refresh()).documents).toBe(1);
    lax.close();
  }, 60_000);
});
