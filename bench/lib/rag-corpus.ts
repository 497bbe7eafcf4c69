import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small deterministic generator, so every run indexes the same corpus. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SYLLABLES =
  'ka lo mi ne ru sa te vi zo ba de fi gu ha ji ko lu ma no pe qui ro su ta ve wo xa yu ze'.split(' ');
const VOCABULARY = 20_000;
export const DOCS_PER_FOLDER = 1_000;

/** 20,000 distinct words of 2 to 4 syllables; word i is the i-th most frequent (Zipf, s = 1). */
function vocabulary(): { words: string[]; cdf: Float64Array } {
  const words: string[] = [];
  const next = random(7);
  const seen = new Set<string>();
  while (words.length < VOCABULARY) {
    const length = 2 + Math.floor(next() * 3);
    let word = '';
    for (let i = 0; i < length; i++) word += SYLLABLES[Math.floor(next() * SYLLABLES.length)];
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  const cdf = new Float64Array(VOCABULARY);
  let total = 0;
  for (let i = 0; i < VOCABULARY; i++) cdf[i] = total += 1 / (i + 1);
  for (let i = 0; i < VOCABULARY; i++) cdf[i] = (cdf[i] as number) / total;
  return { words, cdf };
}

function sampler(seed: number) {
  const { words, cdf } = vocabulary();
  const next = random(seed);
  const word = () => {
    const r = next();
    let lo = 0;
    let hi = VOCABULARY - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    return words[lo] as string;
  };
  const sentence = (n: number) => {
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(word());
    const text = parts.join(' ');
    return `${text[0]?.toUpperCase()}${text.slice(1)}.`;
  };
  return { word, sentence, next, words };
}

/**
 * `docs` markdown files (1,000 per folder), each a title and 5 sections of 2 paragraphs of about
 * 70 words (Zipf-distributed over a 20,000-word vocabulary): about 10 chunks a file at 128-token
 * chunks. Kept in the temp folder between runs. Returns the root, the folders, and queries of 2
 * to 4 mid-frequency words.
 */
export async function makeRagCorpus(
  docs: number,
): Promise<{ root: string; folders: string[]; queries: string[] }> {
  const root = join(tmpdir(), `raf-bench-rag-${docs}`);
  const folders = Array.from({ length: Math.ceil(docs / DOCS_PER_FOLDER) }, (_, i) => `part-${i}`);
  const { word, sentence, next, words } = sampler(42);
  const queries = Array.from({ length: 200 }, () => {
    const n = 2 + Math.floor(next() * 3);
    return Array.from({ length: n }, () => words[50 + Math.floor(next() * 5_000)]).join(' ');
  });
  if (existsSync(join(root, '.complete-v2'))) return { root, folders, queries };
  await rm(root, { recursive: true, force: true });
  for (let d = 0; d < docs; d++) {
    const folder = join(root, folders[Math.floor(d / DOCS_PER_FOLDER)] as string);
    if (d % DOCS_PER_FOLDER === 0) await mkdir(folder, { recursive: true });
    const lines = [`# ${word()} ${word()} ${d}`, ''];
    for (let s = 0; s < 5; s++) {
      lines.push(`## ${word()} ${word()}`, '');
      for (let p = 0; p < 2; p++)
        lines.push(Array.from({ length: 5 }, () => sentence(8 + Math.floor(next() * 6))).join(' '), '');
    }
    await writeFile(join(folder, `doc-${d}.md`), lines.join('\n'));
  }
  await writeFile(join(root, '.complete-v2'), '');
  return { root, folders, queries };
}
