// One agent run in a fresh process, as `raf run`, a CI job or a serverless function does it: wall
// time from spawn to exit (import, build, 4 tool rounds of 3 calls against the mock server, exit).
// Medians of alternating runs, so machine noise hits every contender alike.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const COLD_RUN_CONTENDERS = ['floor', 'floorLateTierUp', 'raf', 'openaiAgents', 'aiSdk'] as const;
export type ColdRunResult = Record<(typeof COLD_RUN_CONTENDERS)[number], number>;

const here = fileURLToPath(new URL('.', import.meta.url));
const thisRepo = fileURLToPath(new URL('..', import.meta.url));

/**
 * Compiles `cold-run-child.ts` to plain ESM, packages left external (imported from their `dist`),
 * inside `<repo>/bench/node_modules`, so that it resolves packages as that bench folder does.
 */
export async function compileColdRunChild(repo = thisRepo): Promise<string> {
  const outdir = `${repo}bench/node_modules/.cache/raf-cold-run`;
  const { build } = await import('esbuild');
  await build({
    entryPoints: { child: `${here}cold-run-child.ts` },
    outdir,
    bundle: true,
    // Chunks for the dynamic imports: each contender loads only its own modules.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    logLevel: 'error',
  });
  return `${outdir}/child.mjs`;
}

/** Wall ms of one run of `contender` in a fresh process, spawn to exit. */
export function coldRun(child: string, contender: string, baseURL: string): Promise<number> {
  // Without NODE_OPTIONS: no tsx loader and no source condition in the measured process.
  const { NODE_OPTIONS: _, ...env } = process.env;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = spawn(process.execPath, [child, contender, baseURL], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env,
    });
    let err = '';
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.once('error', reject);
    proc.once('close', (code) => {
      if (code !== 0) reject(new Error(`cold run of ${contender} exited ${code}: ${err.slice(-2000)}`));
      else resolve(performance.now() - started);
    });
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Median wall ms per contender; undefined when the packages are not built (tests run from source).
 * `check`: one run of each first, untimed (the page cache, and a check that each contender works).
 */
export async function runColdRunBench(
  baseURL: string,
  runs: number,
  { check = true }: { check?: boolean } = {},
): Promise<ColdRunResult | undefined> {
  if (!existsSync(`${thisRepo}packages/framework/dist/index.js`)) return undefined;
  const child = await compileColdRunChild();
  const contenders = [...COLD_RUN_CONTENDERS];
  if (check) for (const contender of contenders) await coldRun(child, contender, baseURL);
  const times = new Map<string, number[]>(contenders.map((c) => [c, []]));
  for (let round = 0; round < runs; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(i + round) % contenders.length]!;
      times.get(contender)!.push(await coldRun(child, contender, baseURL));
    }
  }
  return Object.fromEntries(contenders.map((c) => [c, median(times.get(c)!)])) as ColdRunResult;
}
