import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryIO, main } from '@raf/cli';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
let dir: string;
beforeEach(async () => {
  // A copy: the run writes logs/super-brain.
  dir = join(await mkdtemp(join(tmpdir(), 'raf-example-memory-')), 'memory');
  await cp(here, dir, {
    recursive: true,
    filter: (src) => !src.includes('node_modules') && !src.includes(`${here}logs`) && !src.includes('.raf'),
  });
});
afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

async function pages(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((e) => e.endsWith('.md')).sort();
}

describe('the memory example', () => {
  it('runs offline on its recorded model: saves two facts, then the curator adds a page; the bundle grows and validates', async () => {
    const bundle = join(dir, 'logs/super-brain');
    expect(await pages(bundle)).toEqual([]);
    const run = createMemoryIO({ cwd: dir });
    const input = "I'm Ada. I write compilers in OCaml, and I like short answers.";
    expect(
      await main(['run', 'agent.yaml', '-i', input, '--sessions-dir', join(dir, '.raf/sessions')], run.io),
      run.err(),
    ).toBe(0);
    expect(run.out()).toBe('Nice to meet you, Ada. Noted: compilers in OCaml, short answers.\n');
    expect(run.err()).toContain('memory: updated assets/programming/ocaml/compilers.md');
    const grown = await pages(bundle);
    expect(grown).toHaveLength(13);
    expect(grown).toContain('assets/programming/ocaml/compilers.md');
    expect(await readFile(join(bundle, 'references/USER.md'), 'utf8')).toContain(
      'The user is Ada; she writes compilers in OCaml.',
    );
    expect(await readFile(join(bundle, 'references/PREFERENCE.md'), 'utf8')).toContain(
      'Ada likes short answers.',
    );
    expect(await readFile(join(bundle, 'log.md'), 'utf8')).toMatch(
      /\| updated: assets\/programming\/ocaml\/compilers\.md \|\n$/,
    );
    const check = createMemoryIO({ cwd: dir });
    expect(await main(['memory', 'check', 'logs/super-brain'], check.io)).toBe(0);
    expect(check.out()).toBe(`${bundle}: 13 pages, valid\n`);
  });
});
