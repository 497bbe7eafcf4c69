import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalSearchOperations } from './local-search-operations.js';
import { hasRipgrep } from './ripgrep-search.js';
import type { SearchRequest } from './tool-operations.js';

let dir: string;
const signal = new AbortController().signal;
const walker = new LocalSearchOperations({ engine: 'walker' });
const ripgrep = new LocalSearchOperations({ engine: 'ripgrep' });

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-search-')));
  await mkdir(join(dir, 'src', 'nested'), { recursive: true });
  await mkdir(join(dir, '.git'), { recursive: true });
  await writeFile(join(dir, 'src', 'a.ts'), 'const Needle = 1;\nno match here\nneedle again\n');
  await writeFile(join(dir, 'src', 'nested', 'b.rs'), `fn needle() {}\n${'x'.repeat(500)}needle\n`);
  await writeFile(join(dir, '.hidden.ts'), 'needle in a dot file\n');
  await writeFile(join(dir, '.git', 'config'), 'needle in a dot folder\n');
  await writeFile(join(dir, 'image.bin'), Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]));
  await writeFile(join(dir, 'crlf.txt'), 'needle\r\nnext\r\n');
  await writeFile(join(dir, 'many.txt'), Array.from({ length: 250 }, (_, i) => `needle ${i}`).join('\n'));
  let deep = dir;
  for (let i = 0; i < 22; i++) deep = join(deep, `d${i}`);
  await mkdir(deep, { recursive: true });
  await writeFile(join(deep, 'deep.txt'), 'needle too deep\n');
  await writeFile(join(dir, 'd0', 'd1', 'shallow.txt'), 'needle shallow\n');
  await symlink(join(dir, 'src'), join(dir, 'src-link'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const request = (over: Partial<SearchRequest> = {}): SearchRequest => ({
  pattern: 'needle',
  directory: dir,
  caseInsensitive: false,
  maxMatches: 1000,
  signal,
  ...over,
});

const rgInstalled = await hasRipgrep();

describe('search engines give the same answers', () => {
  const cases: [string, Partial<SearchRequest>][] = [
    ['plain pattern', {}],
    ['case-insensitive', { caseInsensitive: true }],
    ['include glob on the name', { include: '*.ts' }],
    ['include glob with a folder', { include: 'src/**/*.rs' }],
    ['regex classes', { pattern: '^needle \\d+$' }],
  ];
  it.each(cases)('walker: %s', async (_name, over) => {
    const fromWalker = await walker.search(request(over));
    expect(fromWalker.engine).toBe('walker');
    expect(fromWalker.matches.length).toBeGreaterThan(0);
  });

  it.runIf(rgInstalled).each(cases)('ripgrep gives what the walker gives: %s', async (_name, over) => {
    const fromWalker = await walker.search(request(over));
    const fromRipgrep = await ripgrep.search(request(over));
    expect(fromRipgrep.engine).toBe('ripgrep');
    expect(fromRipgrep).toEqual({ ...fromWalker, engine: 'ripgrep' });
  });

  it('skips dot folders, binary files, links and anything deeper than 20 levels; keeps dot files', async () => {
    const files = new Set((await walker.search(request())).matches.map((m) => m.file.slice(dir.length + 1)));
    expect([...files].sort()).toEqual([
      '.hidden.ts',
      'crlf.txt',
      'd0/d1/shallow.txt',
      'many.txt',
      'src/a.ts',
      'src/nested/b.rs',
    ]);
  });

  it('cuts lines to 300 characters and strips a CR', async () => {
    const { matches } = await walker.search(request({ directory: join(dir, 'src', 'nested') }));
    expect(matches[1]?.content).toBe(`${'x'.repeat(300)}…`);
    expect((await walker.search(request({ directory: join(dir, 'crlf.txt') }))).matches[0]?.content).toBe(
      'needle',
    );
  });

  const stopsAtTheLimit = async (engine: LocalSearchOperations, name: string) => {
    const outcome = await engine.search(request({ directory: join(dir, 'many.txt'), maxMatches: 200 }));
    expect(outcome).toMatchObject({ engine: name, truncated: true });
    expect(outcome.matches.map((m) => m.line)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  };
  it('walker stops at the match limit and says it truncated', () => stopsAtTheLimit(walker, 'walker'));
  it.runIf(rgInstalled)('ripgrep stops at the match limit and says it truncated', () =>
    stopsAtTheLimit(ripgrep, 'ripgrep'),
  );

  it('falls back to the walker when ripgrep is missing (no "spawn rg ENOENT")', async () => {
    const missing = new LocalSearchOperations({ engine: 'ripgrep', ripgrepPath: join(dir, 'no-such-rg') });
    const outcome = await missing.search(request({ include: '*.ts' }));
    expect(outcome).toEqual(await walker.search(request({ include: '*.ts' })));
  });

  it('reports an invalid pattern, and runs JS-only syntax (lookbehind) with the walker', async () => {
    await expect(walker.search(request({ pattern: '(' }))).rejects.toThrow(/invalid regular expression/);
    await expect(ripgrep.search(request({ pattern: '(' }))).rejects.toThrow(/invalid regular expression/);
    const lookbehind = await ripgrep.search(
      request({ pattern: '(?<=fn )needle', directory: join(dir, 'src') }),
    );
    expect(lookbehind).toMatchObject({ engine: 'walker', matches: [{ line: 1 }] });
  });
});

describe('find', () => {
  it('globs without following links or entering dot folders, sorted', async () => {
    const { results } = await walker.find({ pattern: '**/*.ts', directory: dir, maxResults: 500, signal });
    expect(results).toEqual([join(dir, 'src', 'a.ts')]);
  });

  it('caps results and refuses patterns that climb out', async () => {
    const { results, truncated } = await walker.find({
      pattern: '**/*',
      directory: dir,
      maxResults: 3,
      signal,
    });
    expect(results).toHaveLength(3);
    expect(truncated).toBe(true);
    await expect(walker.find({ pattern: '../**', directory: dir, maxResults: 5, signal })).rejects.toThrow(
      /must not contain/,
    );
    await expect(walker.find({ pattern: '/etc/*', directory: dir, maxResults: 5, signal })).rejects.toThrow(
      /relative/,
    );
  });
});
