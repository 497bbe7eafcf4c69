// memory_recall and memory_save on a generated super-brain bundle (SPEC §6 targets: recall p50
// ≤ 30 ms, save p50 ≤ 10 ms on 5,000 pages), in this process, wall time per call.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryBundle, seedBundle } from '@raf/framework';

export interface MemoryBenchOptions {
  pages: number;
  calls: number;
}

export interface MemoryBenchResult {
  pages: number;
  /** The first recall: builds the index over every page. */
  indexBuildMs: number;
  recallP50Ms: number;
  saveP50Ms: number;
}

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SYLLABLES = 'ka lo mi ne ru sa ti vo xe zu ba de fi go hu ja ke la mo ni'.split(' ');

function vocabulary(size: number, next: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const length = 2 + Math.floor(next() * 3);
    words.add(Array.from({ length }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join(''));
  }
  return [...words];
}

const p50 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;

/** A seeded bundle with `pages` section pages (topics × chapters × sections) of ~150 words each, and their indexes. */
async function makeBundle(
  root: string,
  pages: number,
  words: string[],
  next: () => number,
): Promise<string[]> {
  await seedBundle(root);
  const topics = Math.max(1, Math.round(pages / 250));
  const rows = (entries: string[]) =>
    `| name | description | path |\n| ---- | ----------- | ---- |\n${entries.map((e) => `| ${e} | about ${e} | [${e}](${e}) |`).join('\n')}\n`;
  const index = (title: string, entries: string[]) =>
    `---\ntype: index\ntitle: ${title}\n---\n\n# ${title}\n\n${rows(entries)}`;
  const sections: string[] = [];
  const topicLinks: string[] = [];
  for (let t = 0, made = 0; t < topics && made < pages; t++) {
    const chapterLinks: string[] = [];
    for (let c = 0; c < 10 && made < pages; c++) {
      const folder = join(root, 'assets', `topic-${t}`, `chapter-${c}`);
      await mkdir(folder, { recursive: true });
      const sectionLinks: string[] = [];
      for (let s = 0; s < 25 && made < pages; s++, made++) {
        const body = Array.from({ length: 150 }, () => words[Math.floor(next() * words.length)]).join(' ');
        await writeFile(
          join(folder, `section-${s}.md`),
          `---\ntype: knowledge\ntitle: Section ${t}.${c}.${s}\n---\n\n# Section ${t}.${c}.${s}\n\n${body}\n`,
        );
        sectionLinks.push(`section-${s}.md`);
        sections.push(`topic-${t}/chapter-${c}/section-${s}`);
      }
      await writeFile(join(folder, 'INDEX.md'), index(`chapter-${c}`, sectionLinks));
      chapterLinks.push(`chapter-${c}/INDEX.md`);
    }
    await writeFile(join(root, 'assets', `topic-${t}`, 'INDEX.md'), index(`topic-${t}`, chapterLinks));
    topicLinks.push(`topic-${t}/INDEX.md`);
  }
  await writeFile(join(root, 'assets', 'INDEX.md'), index('Knowledge', topicLinks));
  return sections;
}

export async function runMemoryBench(options: MemoryBenchOptions): Promise<MemoryBenchResult> {
  const next = random(42);
  const words = vocabulary(3000, next);
  const base = await mkdtemp(join(tmpdir(), 'raf-bench-memory-'));
  try {
    const root = join(base, 'super-brain');
    const sections = await makeBundle(root, options.pages, words, next);
    const bundle = new MemoryBundle(root);
    const query = () =>
      `${words[Math.floor(next() * words.length)]} ${words[Math.floor(next() * words.length)]}`;
    let started = performance.now();
    await bundle.recall(query());
    const indexBuildMs = performance.now() - started;
    const recalls: number[] = [];
    const saves: number[] = [];
    // Alternating, so recall also pays for noticing the pages saves changed.
    for (let i = 0; i < options.calls; i++) {
      const topic = sections[Math.floor(next() * sections.length)] as string;
      started = performance.now();
      await bundle.save(topic, `fact ${i}: ${query()} ${query()}`);
      saves.push(performance.now() - started);
      started = performance.now();
      const hits = await bundle.recall(query());
      recalls.push(performance.now() - started);
      if (hits.length === 0) throw new Error('memory bench: a recall of two known words found nothing');
    }
    return { pages: options.pages, indexBuildMs, recallP50Ms: p50(recalls), saveP50Ms: p50(saves) };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
