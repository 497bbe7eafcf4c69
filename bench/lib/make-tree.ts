import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WORDS =
  'alpha beta gamma delta import export const function return value index config server client request'.split(
    ' ',
  );

/** A small deterministic generator, so every run searches the same tree. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export const NEEDLE = 'raf_needle_42';

/**
 * A tree of `files` text files (200 per folder, two folder levels, one in ten `.md`), about 30
 * lines each; one file in 500 contains `NEEDLE`. Kept in the temp folder between runs.
 */
export async function makeTree(files: number): Promise<string> {
  const root = join(tmpdir(), `raf-bench-tree-${files}`);
  const marker = join(root, '.complete-v1');
  if (existsSync(marker)) return root;
  await rm(root, { recursive: true, force: true });
  const next = random(files);
  const perFolder = 200;
  for (let i = 0; i < files; i++) {
    const folder = join(
      root,
      `pkg${Math.floor(i / (perFolder * 10))}`,
      `mod${Math.floor(i / perFolder) % 10}`,
    );
    if (i % perFolder === 0) await mkdir(folder, { recursive: true });
    const lines: string[] = [];
    for (let l = 0; l < 30; l++) {
      lines.push(Array.from({ length: 6 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' '));
    }
    if (i % 500 === 7) lines[12] = `const marker = "${NEEDLE}";`;
    await writeFile(join(folder, `file${i}.${i % 10 === 0 ? 'md' : 'ts'}`), `${lines.join('\n')}\n`);
  }
  await writeFile(marker, '');
  return root;
}
