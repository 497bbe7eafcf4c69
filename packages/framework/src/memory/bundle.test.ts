import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pageForTopic } from './bundle-layout.js';
import { seedBundle, templateDirectory } from './bundle-template.js';
import { parseEntries } from './entries.js';
import { MemoryBundle } from './memory-bundle.js';
import { repairIndexes, validateBundle } from './validate-bundle.js';

let dir: string;
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'raf-bundle-')), 'brain');
});
afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

const read = (rel: string) => readFile(join(dir, rel), 'utf8');

describe('topics', () => {
  it('map reference names to references/ and domain paths to assets/ topic/chapter/section', () => {
    expect(pageForTopic('user')).toEqual({ path: 'references/USER.md', type: 'user', levels: [] });
    expect(pageForTopic('Preferences').path).toBe('references/PREFERENCE.md');
    expect(pageForTopic('references/RULES').path).toBe('references/RULES.md');
    expect(pageForTopic('TypeScript / Generics / Variance').path).toBe(
      'assets/typescript/generics/variance.md',
    );
    expect(pageForTopic('cooking').path).toBe('assets/cooking/general/notes.md');
    expect(pageForTopic('机器学习/基础').path).toBe('assets/机器学习/基础/notes.md');
    expect(() => pageForTopic('a/b/c/d')).toThrow('at most 3');
    expect(() => pageForTopic('../..')).toThrow('no letters or digits');
  });
});

describe('seeding', () => {
  it('writes the template, and the seeded bundle validates with index.md as its entry', async () => {
    const written = await seedBundle(dir);
    expect(written).toEqual(
      [
        'AGENT.md',
        'SKILL.md',
        'assets/INDEX.md',
        'index.md',
        'log.md',
        'references/LESSON.md',
        'references/PREFERENCE.md',
        'references/RULES.md',
        'references/SOUL.md',
        'references/USER.md',
      ].sort(),
    );
    expect(await validateBundle(dir)).toEqual({ ok: true, directory: dir, pages: 10, issues: [] });
    expect(await read('index.md')).toMatch(/^---\ntype: index\n/);
  });

  it('never overwrites a user edit; re-creates a deleted file; upgrades files the user never touched', async () => {
    await seedBundle(dir);
    const edited = `${await read('references/USER.md')}\nThe user is Ada, a compiler engineer.\n`;
    await writeFile(join(dir, 'references/USER.md'), edited);
    await rm(join(dir, 'log.md'));
    // A bundle seeded from an older template: RULES.md still as that template wrote it.
    const seeded = JSON.parse(await read('.raf/seeded.json')) as Record<string, string>;
    await writeFile(join(dir, 'references/RULES.md'), 'old template text\n');
    const { createHash } = await import('node:crypto');
    seeded['references/RULES.md'] = createHash('sha256').update('old template text\n').digest('hex');
    await writeFile(join(dir, '.raf/seeded.json'), JSON.stringify(seeded));

    expect((await seedBundle(dir)).sort()).toEqual(['log.md', 'references/RULES.md']);
    expect(await read('references/USER.md')).toBe(edited);
    expect(await read('references/RULES.md')).toBe(
      await readFile(join(templateDirectory(), 'references/RULES.md'), 'utf8'),
    );
    expect(await seedBundle(dir)).toEqual([]);
  });

  it('removes temporary files a killed writer left behind, once they are old', async () => {
    await seedBundle(dir);
    const stale = join(dir, 'references', '.USER.md.abc.tmp');
    const fresh = join(dir, 'references', '.USER.md.def.tmp');
    await writeFile(stale, 'half');
    await writeFile(fresh, 'half');
    const { utimes } = await import('node:fs/promises');
    await utimes(stale, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    await seedBundle(dir);
    expect((await readdir(join(dir, 'references'))).filter((f) => f.startsWith('.'))).toEqual([
      '.USER.md.def.tmp',
    ]);
  });
});

describe('memory_save and memory_recall', () => {
  it('appends entries to the topic page, creates pages with their index rows, and finds them', async () => {
    const bundle = new MemoryBundle(dir);
    const first = await bundle.save('user', 'The user is Ada, a compiler engineer in Lisbon.');
    expect(first).toMatchObject({ path: 'references/USER.md', created: false, indexed: [] });
    const second = await bundle.save(
      'typescript/generics/variance',
      'Function parameters are checked contravariantly.',
    );
    expect(second).toMatchObject({
      path: 'assets/typescript/generics/variance.md',
      created: true,
      indexed: ['assets/typescript/generics/INDEX.md', 'assets/typescript/INDEX.md', 'assets/INDEX.md'],
    });
    await bundle.save('typescript/generics/variance', 'Arrays are covariant in TypeScript (unsound).');
    const page = await read('assets/typescript/generics/variance.md');
    expect(page).toMatch(/^---\ntype: knowledge\ntitle: variance\n/);
    expect(parseEntries(page)).toHaveLength(2);
    expect(await read('assets/INDEX.md')).toContain(
      '| typescript | typescript: see its INDEX.md | [typescript/INDEX.md](typescript/INDEX.md) |',
    );
    expect(await validateBundle(dir)).toMatchObject({ ok: true, issues: [] });

    expect((await bundle.recall('contravariantly'))[0]).toMatchObject({
      path: 'assets/typescript/generics/variance.md',
      title: 'variance',
    });
    expect((await bundle.recall('Lisbon compiler'))[0]?.path).toBe('references/USER.md');
    expect((await bundle.recall('Lisbon'))[0]?.snippet).toContain('Ada, a compiler engineer in Lisbon');
    expect(await bundle.recall('zebra')).toEqual([]);
  });

  it('recall sees pages another writer added or changed after the index was built', async () => {
    const bundle = new MemoryBundle(dir);
    await bundle.save('cooking/bread/sourdough', 'Feed the starter twice a day.');
    expect(await bundle.recall('starter')).toHaveLength(1);
    const other = new MemoryBundle(dir);
    await other.save('cooking/bread/rye', 'Rye needs a longer starter proof.');
    await other.save('cooking/bread/sourdough', 'Hydration of 75 percent works well.');
    expect((await bundle.recall('starter')).map((h) => h.path).sort()).toEqual([
      'assets/cooking/bread/rye.md',
      'assets/cooking/bread/sourdough.md',
    ]);
    expect((await bundle.recall('hydration'))[0]?.path).toBe('assets/cooking/bread/sourdough.md');
    await rm(join(dir, 'assets/cooking/bread/rye.md'));
    expect((await bundle.recall('starter')).map((h) => h.path)).toEqual([
      'assets/cooking/bread/sourdough.md',
    ]);
  });

  it('keeps every entry when many saves race on one page and one index', async () => {
    const writers = [new MemoryBundle(dir), new MemoryBundle(dir)];
    const saves = Array.from({ length: 40 }, (_, i) =>
      writers[i % 2]!.save(i % 4 === 0 ? `notes/n${i}` : 'user', `fact number ${i}`),
    );
    await Promise.all(saves);
    const user = parseEntries(await read('references/USER.md'));
    expect(user).toHaveLength(30);
    const index = await read('assets/notes/INDEX.md');
    for (let i = 0; i < 40; i += 4) expect(index).toContain(`[n${i}/INDEX.md]`);
    expect(await validateBundle(dir)).toMatchObject({ ok: true });
  });

  it('refuses empty content and bad topics with a message, writing nothing', async () => {
    const bundle = new MemoryBundle(dir);
    await expect(bundle.save('user', '  ')).rejects.toThrow('content is empty');
    await expect(bundle.save('a/b/c/d', 'x')).rejects.toThrow('at most 3 (topic/chapter/section)');
  });
});

describe('validateBundle', () => {
  it('reports broken frontmatter, index entries pointing nowhere, and pages missing from an index', async () => {
    await seedBundle(dir);
    await writeFile(join(dir, 'references/USER.md'), '---\ntype: [user\n---\n# User\n');
    await writeFile(join(dir, 'references/SOUL.md'), '# Soul without frontmatter\n');
    await writeFile(join(dir, 'references/RULES.md'), '---\ntitle: no type\n---\n');
    await writeFile(join(dir, 'references/OLD.archived.md'), 'archived pages are skipped');
    const index = await read('assets/INDEX.md');
    await writeFile(
      join(dir, 'assets/INDEX.md'),
      `${index}| gone | deleted | [gone/INDEX.md](gone/INDEX.md) |\n`,
    );
    await writeFile(join(dir, 'assets/stray.md'), '---\ntype: knowledge\n---\nnot listed\n');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'assets/topic/chapter'), { recursive: true });
    await writeFile(
      join(dir, 'assets/topic/chapter/section.md'),
      '---\ntype: knowledge\ntitle: Section\n---\nx\n',
    );
    const report = await validateBundle(dir);
    expect(report.ok).toBe(false);
    expect(report.issues).toEqual([
      {
        code: 'broken-index-entry',
        path: 'assets/INDEX.md',
        line: 11,
        message: "index entry 'gone/INDEX.md' points nowhere",
      },
      {
        code: 'frontmatter',
        path: 'references/RULES.md',
        line: 2,
        message: "frontmatter 'type' is required (a non-empty string)",
      },
      {
        code: 'frontmatter',
        path: 'references/SOUL.md',
        line: 1,
        message: "no YAML frontmatter (the page must start with '---')",
      },
      expect.objectContaining({ code: 'frontmatter', path: 'references/USER.md', line: 2 }),
      { code: 'not-indexed', path: 'assets/stray.md', message: 'not listed in assets/INDEX.md' },
      {
        code: 'not-indexed',
        path: 'assets/topic/chapter/section.md',
        message: 'not listed in an index: assets/topic/chapter/INDEX.md is missing',
      },
    ]);
    expect((await repairIndexes(dir)).sort()).toEqual([
      'assets/INDEX.md',
      'assets/topic/INDEX.md',
      'assets/topic/chapter/INDEX.md',
    ]);
    expect((await validateBundle(dir)).issues.map((i) => i.code)).toEqual([
      'broken-index-entry',
      'frontmatter',
      'frontmatter',
      'frontmatter',
    ]);
  });

  it('says a missing folder and missing reserved files plainly', async () => {
    expect(await validateBundle(dir)).toMatchObject({
      ok: false,
      issues: [{ code: 'missing-file', path: '.' }],
    });
    await seedBundle(dir);
    await rm(join(dir, 'log.md'));
    expect((await validateBundle(dir)).issues).toEqual([
      { code: 'missing-file', path: 'log.md', message: "log.md is missing (the bundle's changelog)" },
      {
        code: 'broken-index-entry',
        path: 'index.md',
        line: 22,
        message: "index entry 'log.md' points nowhere",
      },
    ]);
  });
});

describe("the curator's file operations", () => {
  it('a rewrite keeps entries saved while the curator worked, adds missing frontmatter, refuses the framework files', async () => {
    const { bundleOperations } = await import('./bundle-operations.js');
    const { realpath } = await import('node:fs/promises');
    const bundle = new MemoryBundle(dir);
    await bundle.save('user', 'Seen by the curator.');
    const root = await realpath(dir);
    await new Promise((r) => setTimeout(r, 5));
    const since = new Date().toISOString();
    const written: string[] = [];
    const ops = bundleOperations(root, { since, onWritten: (rel) => void written.push(rel) });
    const stale = await read('references/USER.md');
    await bundle.save('user', 'Saved during the job.');
    const signal = new AbortController().signal;
    const folded = stale.replace(/<!-- entry:[\s\S]*?<!-- \/entry -->\n/, 'The user likes terse answers.\n');
    await ops.fs.writeFile(join(root, 'references/USER.md'), folded, { signal });
    const page = await read('references/USER.md');
    expect(page).toContain('The user likes terse answers.');
    expect(page).not.toContain('Seen by the curator.');
    expect(parseEntries(page).map((e) => e.block)).toEqual([
      expect.stringContaining('Saved during the job.'),
    ]);

    await ops.fs.writeFile(join(root, 'assets/plain.md'), '# Plain\n', { signal });
    expect(await read('assets/plain.md')).toBe('---\ntype: knowledge\ntitle: plain\n---\n\n# Plain\n');
    await expect(
      ops.fs.writeFile(join(root, 'assets/bad.md'), '---\ntype: [\n---\n', { signal }),
    ).rejects.toThrow('assets/bad.md:2: invalid YAML frontmatter');
    await expect(ops.fs.writeFile(join(root, 'log.md'), 'gone', { signal })).rejects.toThrow(
      'log.md is kept by the framework',
    );
    expect(written).toEqual(['references/USER.md', 'assets/plain.md']);
  });
});

describe('changes that span files', () => {
  it('a page the curator creates is indexed at once; archiving it removes its row; a rename moves the row', async () => {
    const { bundleOperations } = await import('./bundle-operations.js');
    const { realpath } = await import('node:fs/promises');
    await seedBundle(dir);
    const root = await realpath(dir);
    const ops = bundleOperations(root, { since: new Date().toISOString() });
    const signal = new AbortController().signal;
    await ops.fs.writeFile(
      join(root, 'assets/go/basics/slices.md'),
      '---\ntype: knowledge\ntitle: Slices\n---\nappend may copy\n',
      { signal },
    );
    expect(await read('assets/go/basics/INDEX.md')).toContain('| Slices |  | [slices.md](slices.md) |');
    expect(await validateBundle(dir)).toMatchObject({ ok: true });
    await ops.fs.move(join(root, 'assets/go/basics/slices.md'), join(root, 'assets/go/basics/arrays.md'));
    expect(await read('assets/go/basics/INDEX.md')).toContain('[arrays.md](arrays.md)');
    expect(await validateBundle(dir)).toMatchObject({ ok: true });
    await ops.fs.move(
      join(root, 'assets/go/basics/arrays.md'),
      join(root, 'assets/go/basics/arrays.archived.md'),
    );
    expect(await read('assets/go/basics/INDEX.md')).not.toContain('arrays');
    expect(await validateBundle(dir)).toMatchObject({ ok: true, issues: [] });
  });

  it('a change a killed writer left in flight is not a problem, and the next seeding completes it', async () => {
    const { beginChange } = await import('./pending-changes.js');
    const { mkdir } = await import('node:fs/promises');
    await seedBundle(dir);
    // Killed after writing the page, before its index rows (a process that is gone).
    const record = await beginChange(dir, { op: 'create', page: 'assets/t/c/s.md' });
    const { execFileSync } = await import('node:child_process');
    const gone = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
    await writeFile(record, JSON.stringify({ op: 'create', page: 'assets/t/c/s.md', pid: gone }));
    const live = await beginChange(dir, { op: 'create', page: 'assets/t/c/live.md' });
    await mkdir(join(dir, 'assets/t/c'), { recursive: true });
    await writeFile(join(dir, 'assets/t/c/s.md'), '---\ntype: knowledge\ntitle: S\n---\nx\n');
    expect(await validateBundle(dir)).toMatchObject({ ok: true });
    await seedBundle(dir);
    // This process's own record is a live writer's: left for it to finish.
    expect(await readdir(join(dir, '.raf/pending'))).toEqual([live.split('/').at(-1)]);
    expect(await read('assets/t/c/INDEX.md')).toContain('[s.md](s.md)');
    expect(await read('assets/INDEX.md')).toContain('[t/INDEX.md](t/INDEX.md)');
  });
});
