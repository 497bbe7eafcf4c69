import { mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeMarkdownVault, makeUpstreamWiki } from '../test-support/make-wikis.js';
import { Wiki } from './wiki.js';

let dir: string;
let wikis: Wiki[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-wiki-'));
});
afterEach(async () => {
  await Promise.all(wikis.map((w) => w.close()));
  wikis = [];
  await rm(dir, { recursive: true, force: true });
});
const open = async (root: string) => {
  const wiki = await Wiki.open(root);
  wikis.push(wiki);
  return wiki;
};
const signal = () => new AbortController().signal;

describe('an upstream-layout wiki', () => {
  it('loads spaces and pages (_page.yaml + content.*) with their metadata', async () => {
    await makeUpstreamWiki(join(dir, 'wiki'));
    const wiki = await open(join(dir, 'wiki'));
    expect(wiki.spaceList.map((s) => [s.name, s.title]).sort()).toEqual([
      ['eng', 'Engineering'],
      ['ops', 'Operations'],
    ]);
    expect(wiki.pageList.map((p) => p.id).sort()).toEqual([
      'eng/release',
      'eng/setup',
      'ops/limits',
      'ops/oncall',
    ]);
    expect(wiki.page('eng/setup')).toMatchObject({
      title: 'Development setup',
      space: 'eng',
      type: 'guide',
      tags: ['onboarding', 'tooling'],
      created: '2026-01-02',
      layout: 'upstream',
    });
    expect(wiki.page('ops/limits')?.content).toBe('api: 100/minute\n');
    expect(wiki.stats()).toMatchObject({
      pages: 4,
      spaces: 2,
      links: 4,
      unresolvedLinks: 1,
      layout: 'upstream',
    });
  });

  it('resolves [[links]] by title, page name and id; backlinks are the reverse; unresolved links are listed', async () => {
    await makeUpstreamWiki(join(dir, 'wiki'));
    const wiki = await open(join(dir, 'wiki'));
    expect(wiki.page('Development setup')).toMatchObject({
      id: 'eng/setup',
      links: ['eng/release', 'ops/oncall'],
      backlinks: ['eng/release'],
    });
    expect(wiki.page('eng/release')).toMatchObject({
      links: ['eng/setup'],
      backlinks: ['eng/setup', 'ops/oncall'],
    });
    expect(wiki.page('oncall')).toMatchObject({
      links: ['eng/release'],
      backlinks: ['eng/setup'],
      unresolved: ['Runbook'],
    });
    expect(wiki.concepts('eng/setup', 3).map((c) => [c.id, c.reasons])).toEqual([
      ['eng/release', ['links to', 'linked from', 'shared tag tooling', 'via ops/oncall']],
      ['ops/oncall', ['links to', 'shared tag onboarding', 'via eng/release']],
    ]);
    expect(wiki.concepts(undefined, 2).map((c) => c.id)).toEqual(['eng/release', 'eng/setup']);
  });

  it('searches titles, tags and text', async () => {
    await makeUpstreamWiki(join(dir, 'wiki'));
    const wiki = await open(join(dir, 'wiki'));
    expect(wiki.search('pager rotation')[0]).toMatchObject({ id: 'ops/oncall', title: 'On-call guide' });
    expect(
      wiki
        .search('onboarding')
        .map((h) => h.id)
        .sort(),
    ).toEqual(['eng/setup', 'ops/oncall']);
    expect(wiki.search('tuesday changesets')[0]?.snippet).toContain('Releases are cut on Tuesdays');
  });
});

describe('a markdown vault', () => {
  it('finds Chinese pages by Chinese words (no spaces between words)', async () => {
    await mkdir(join(dir, 'zh'));
    await writeFile(
      join(dir, 'zh', '发布流程.md'),
      '# 发布流程\n\n每周二发布新版本，发布前请阅读[[值班指南]]。\n',
    );
    await writeFile(join(dir, 'zh', '值班指南.md'), '# 值班指南\n\n值班每周轮换一次。\n');
    const wiki = await open(join(dir, 'zh'));
    expect(wiki.search('什么时候发布新版本')[0]?.id).toBe('发布流程');
    expect(wiki.search('值班轮换')[0]?.id).toBe('值班指南');
    expect(wiki.page('值班指南')?.backlinks).toEqual(['发布流程']);
  });

  it('loads frontmatter pages, skips dot-folders, ignores links in code', async () => {
    await makeMarkdownVault(join(dir, 'vault'));
    const wiki = await open(join(dir, 'vault'));
    expect(wiki.pageList.map((p) => [p.id, p.title]).sort()).toEqual([
      ['index', 'Home'],
      ['notes/coffee', 'Coffee brewing'],
      ['notes/grinders', 'Grinders'],
      ['notes/kettles', 'kettles'],
    ]);
    expect(wiki.page('Coffee brewing')).toMatchObject({
      links: ['notes/grinders'],
      backlinks: ['index'],
      unresolved: ['Tea'],
    });
    expect(wiki.page('index')).toMatchObject({
      links: ['notes/coffee', 'notes/grinders'],
      backlinks: ['notes/grinders'],
      tags: ['start'],
    });
    expect(wiki.concepts('notes/grinders').map((c) => c.id)).toEqual([
      'index',
      'notes/coffee',
      'notes/kettles',
    ]);
    expect(wiki.stats()).toMatchObject({ layout: 'markdown', links: 4, unresolvedLinks: 1 });
  });
});

describe('watching', () => {
  it('an edit, a new page and a deletion on disk are seen by the next search within 1 s', async () => {
    await makeMarkdownVault(join(dir, 'vault'));
    const wiki = await open(join(dir, 'vault'));
    await wiki.watch();
    const seen = async (query: string, id: string | undefined) => {
      const started = Date.now();
      while (Date.now() - started < 3_000) {
        const top = wiki.search(query)[0]?.id;
        if (top === id) return Date.now() - started;
        await new Promise((r) => setTimeout(r, 10));
      }
      return Number.POSITIVE_INFINITY;
    };
    await writeFile(
      join(dir, 'vault/notes/kettles.md'),
      '---\ntags: [gear]\n---\nVariable temperature kettles hold 85 degrees.\n',
    );
    expect(await seen('variable temperature', 'notes/kettles')).toBeLessThan(1_000);
    await writeFile(
      join(dir, 'vault/notes/scales.md'),
      'Scales weigh beans to a tenth of a gram. See [[Coffee brewing]].\n',
    );
    expect(await seen('tenth gram', 'notes/scales')).toBeLessThan(1_000);
    expect(wiki.page('notes/coffee')?.backlinks).toEqual(['index', 'notes/scales']);
    await unlink(join(dir, 'vault/notes/scales.md'));
    expect(await seen('tenth gram', undefined)).toBeLessThan(1_000);
    expect(wiki.page('notes/coffee')?.backlinks).toEqual(['index']);
  });
});

describe('writing', () => {
  it('creates upstream and markdown pages atomically and indexes them at once', async () => {
    await makeUpstreamWiki(join(dir, 'wiki'));
    const wiki = await open(join(dir, 'wiki'));
    const made = await wiki.write(
      {
        page: 'ops/backups',
        content: 'Backups run nightly. See [[On-call guide]].',
        title: 'Backups',
        tags: ['ops'],
      },
      signal(),
    );
    expect(made).toMatchObject({ ok: true, id: 'ops/backups', created: true });
    expect(await readFile(join(dir, 'wiki/ops/backups/content.md'), 'utf8')).toBe(
      'Backups run nightly. See [[On-call guide]].',
    );
    expect(await readFile(join(dir, 'wiki/ops/backups/_page.yaml'), 'utf8')).toMatch(
      /title: Backups[\s\S]*tags:\n {2}- ops/,
    );
    expect(wiki.page('Backups')).toMatchObject({ id: 'ops/backups', links: ['ops/oncall'] });
    expect(wiki.page('ops/oncall')?.backlinks).toContain('ops/backups');

    await makeMarkdownVault(join(dir, 'vault'));
    const vault = await open(join(dir, 'vault'));
    expect(await vault.write({ page: 'notes/filters', content: 'Paper filters.' }, signal())).toMatchObject({
      ok: true,
      created: true,
    });
    expect(await readFile(join(dir, 'vault/notes/filters.md'), 'utf8')).toBe('Paper filters.');
  });

  it('replaces a page only with the hash it was read at; an on-disk edit in between is a conflict, not overwritten', async () => {
    await makeMarkdownVault(join(dir, 'vault'));
    const wiki = await open(join(dir, 'vault'));
    const page = wiki.page('notes/grinders');
    const hash = page?.hash as string;
    expect(await wiki.write({ page: 'notes/grinders', content: 'New text.' }, signal())).toMatchObject({
      ok: false,
      error: expect.stringContaining('pass its hash as expected_hash'),
    });
    const edited = '---\ntitle: Grinders\n---\nSomeone edited this on disk.\n';
    await writeFile(join(dir, 'vault/notes/grinders.md'), edited);
    const refused = await wiki.write(
      { page: 'notes/grinders', content: 'Mine.', expectedHash: hash },
      signal(),
    );
    expect(refused).toMatchObject({
      ok: false,
      error: expect.stringContaining('conflict'),
      currentHash: expect.any(String),
    });
    expect(await readFile(join(dir, 'vault/notes/grinders.md'), 'utf8')).toBe(edited);

    const current = refused.ok ? '' : (refused.currentHash as string);
    const written = await wiki.write(
      { page: 'Grinders', content: 'Merged text.', tags: ['gear', 'merged'], expectedHash: current },
      signal(),
    );
    expect(written).toMatchObject({ ok: true, id: 'notes/grinders', created: false });
    const text = await readFile(join(dir, 'vault/notes/grinders.md'), 'utf8');
    expect(text).toMatch(
      /^---\ntitle: Grinders\ntags:\n {2}- gear\n {2}- merged\nupdated: .+\n---\nMerged text\.$/,
    );
    expect(wiki.page('notes/grinders')?.hash).toBe(written.ok ? written.hash : '');
  });

  it('writing exactly what a page holds needs no hash (a second run of the same write succeeds)', async () => {
    await makeMarkdownVault(join(dir, 'vault'));
    const wiki = await open(join(dir, 'vault'));
    const first = await wiki.write({ page: 'notes/moka-pots', content: 'Gooseneck.' }, signal());
    expect(first).toMatchObject({ ok: true, created: true });
    expect(await wiki.write({ page: 'notes/moka-pots', content: 'Gooseneck.' }, signal())).toMatchObject({
      ok: true,
      created: false,
    });
    // Other content still needs the hash.
    expect(await wiki.write({ page: 'notes/moka-pots', content: 'Electric.' }, signal())).toMatchObject({
      ok: false,
      error: expect.stringContaining('pass its hash as expected_hash'),
    });
  });

  it('refuses ids that leave the wiki, and writes through a symlink that points outside (path guard)', async () => {
    await makeMarkdownVault(join(dir, 'vault'));
    await mkdir(join(dir, 'outside'));
    await symlink(join(dir, 'outside'), join(dir, 'vault', 'escape'));
    const wiki = await open(join(dir, 'vault'));
    expect(await wiki.write({ page: '../evil', content: 'x' }, signal())).toMatchObject({
      ok: false,
      error: expect.stringMatching(/page id/),
    });
    expect(await wiki.write({ page: '/etc/evil', content: 'x' }, signal())).toMatchObject({ ok: false });
    await expect(wiki.write({ page: 'escape/evil', content: 'x' }, signal())).rejects.toThrow(
      /outside|denied/i,
    );
    await expect(readFile(join(dir, 'outside', 'evil.md'))).rejects.toThrow();
  });
});
