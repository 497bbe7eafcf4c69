// Opening a wiki (`Wiki.open`, what `raf run` waits for before its first model request) with one
// large markdown page: 43 KB and 172 KB, median wall ms of fresh opens in this process. Linear
// in the page size (the 172 KB page took 7–10 s before the search index fed the word segmenter
// in pieces; 43 KB 0.13 s).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wiki } from '@raf/wiki';

export interface WikiBenchResult {
  open43KbMs: number;
  open172KbMs: number;
  /** open172KbMs / open43KbMs: about 4 when linear. */
  ratio: number;
}

function page(bytes: number): string {
  const parts = ['# Big page\n\n'];
  let length = parts[0]?.length ?? 0;
  for (let i = 0; length < bytes; i++) {
    const line = `Paragraph ${i} about [[topic ${i % 50}]] with some words and \`code\` here.\n\n`;
    parts.push(line);
    length += line.length;
  }
  return parts.join('');
}

const p50 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;

async function openMs(kb: number, runs: number): Promise<number> {
  const root = await mkdtemp(join(tmpdir(), `raf-bench-wiki-${kb}-`));
  try {
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'big.md'), page(kb * 1024));
    await (await Wiki.open(root)).close(); // warm-up: modules loaded, page cache warm
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const wiki = await Wiki.open(root);
      times.push(performance.now() - started);
      await wiki.close();
    }
    return p50(times);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export async function runWikiBench(runs: number): Promise<WikiBenchResult> {
  const open43KbMs = await openMs(43, runs);
  const open172KbMs = await openMs(172, runs);
  return { open43KbMs, open172KbMs, ratio: open172KbMs / open43KbMs };
}
