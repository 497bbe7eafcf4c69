import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's own dependency store: real packages, real file sizes, binaries included. */
const STORE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.pnpm');

function countFiles(root: string): number {
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}

/**
 * A real `node_modules` tree of at least `minFiles` files: hard-linked copies of the repository's
 * `node_modules/.pnpm` (no disk space, one page-cache copy) under the temp folder, kept between
 * runs. Returns the root and its file count.
 */
export async function makeRealTree(minFiles: number): Promise<{ root: string; files: number }> {
  const root = join(tmpdir(), `raf-bench-real-tree-${minFiles}`);
  const marker = join(root, '.complete-v1');
  if (existsSync(marker)) return { root, files: Number(readFileSync(marker, 'utf8')) };
  if (!existsSync(STORE)) throw new Error(`no dependency store at ${STORE}: run pnpm install first`);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  const perCopy = countFiles(STORE);
  const copies = Math.max(1, Math.ceil(minFiles / perCopy));
  for (let i = 0; i < copies; i++) {
    const target = join(root, `copy${i}`);
    // Hard links where the temp folder shares the disk; a real copy of the first, then links, if not.
    let done = spawnSync('cp', ['-al', STORE, target]).status === 0;
    if (!done && i === 0) done = spawnSync('cp', ['-a', STORE, target]).status === 0;
    if (!done) done = spawnSync('cp', ['-al', join(root, 'copy0'), target]).status === 0;
    if (!done) throw new Error(`could not copy ${STORE} to ${target}`);
  }
  const files = countFiles(root);
  await writeFile(marker, String(files));
  return { root, files };
}
