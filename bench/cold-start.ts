// Cold start as whole processes, against `node -e 0` (the floor): `import('@raf/framework')`, the
// built `raf validate` and `raf inspect` on the quickstart, and `raf run` on the quickstart up to its
// first model request (the time the local model server sees it). Medians of alternating runs, so
// machine noise hits all alike.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const thisRepo = fileURLToPath(new URL('..', import.meta.url));

export interface ColdStartResult {
  node: number;
  importFramework: number;
  validate: number;
  inspect: number;
  runToFirstRequest: number;
  /** The same `raf run`, spawn to exit: one model request, the answer written, the process gone. */
  runToExit: number;
}

// Without NODE_OPTIONS: no TypeScript loader and no source condition in the measured processes.
const { NODE_OPTIONS: _, ...env } = process.env;

/** Wall ms from spawn to exit, or to `until` when given (the process is then left to finish). */
function once(args: string[], cwd: string, until?: Promise<number>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd, env });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    let reached: number | undefined;
    void until?.then((at) => (reached = at - started));
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}: ${err.slice(-1000)}`));
      else if (until && reached === undefined) reject(new Error(`node ${args.join(' ')} sent no request`));
      else resolve(reached ?? performance.now() - started);
    });
  });
}

const ANSWER = [
  { choices: [{ index: 0, delta: { role: 'assistant', content: 'Done.' } }] },
  { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
]
  .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .join('');

/**
 * A model server that notes when each request arrives (in this process's clock) and answers
 * "Done." at once, and a copy of the quickstart that talks to it instead of its replay file.
 */
async function firstRequestTarget(repo: string) {
  const bin = `${repo}packages/cli/dist/bin.js`;
  let arrived: (at: number) => void = () => {};
  const server = createServer((request, response) => {
    arrived(performance.now());
    request.resume();
    request.once('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`${ANSWER}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const dir = mkdtempSync(join(tmpdir(), 'raf-cold-start-'));
  cpSync(join(repo, 'examples/quickstart/workspace'), join(dir, 'workspace'), { recursive: true });
  const yaml = readFileSync(`${repo}examples/quickstart/agent.yaml`, 'utf8')
    .replace(/provider: replay\n\s*connection:\n\s*endpoint: .*\n/, 'provider: openai\n')
    .replace(/^# yaml-language-server.*\n/, '');
  if (!yaml.includes('provider: openai')) throw new Error('cold start: the quickstart model block changed');
  writeFileSync(join(dir, 'agent.yaml'), yaml);
  const args = [bin, 'run', join(dir, 'agent.yaml'), '-i', 'Summarise my todo list', '--base-url', baseURL];
  return {
    run(): Promise<number> {
      const request = new Promise<number>((resolve) => {
        arrived = resolve;
      });
      return once(args, dir, request);
    },
    runToExit(): Promise<number> {
      return once(args, dir);
    },
    close() {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

type Case = () => Promise<number>;

/**
 * The processes of the cold-start benchmark for the checkout at `repo` (its built packages), and
 * a `close` for the model server and temp folder they use; undefined when it is not built.
 */
export async function coldStartCases(
  repo = thisRepo,
): Promise<{ cases: Record<keyof ColdStartResult, Case>; close(): void } | undefined> {
  const bin = `${repo}packages/cli/dist/bin.js`;
  const agent = `${repo}examples/quickstart/agent.yaml`;
  if (!existsSync(bin) || !existsSync(`${repo}packages/framework/dist/index.js`)) return undefined;
  env.OPENAI_API_KEY = 'bench';
  const target = await firstRequestTarget(repo);
  return {
    cases: {
      node: () => once(['-e', '0'], repo),
      // From bench/, where `@raf/framework` resolves to the built package as a user's project does.
      importFramework: () =>
        once(['--input-type=module', '-e', "await import('@raf/framework')"], `${repo}bench`),
      validate: () => once([bin, 'validate', agent], repo),
      inspect: () => once([bin, 'inspect', agent], repo),
      runToFirstRequest: () => target.run(),
      runToExit: () => target.runToExit(),
    },
    close: () => target.close(),
  };
}

/**
 * Runs each case once (the page cache, and a check that each works), then `runs` rounds in
 * rotating order; the median of each.
 */
export async function medianTimes<K extends string>(
  cases: Record<K, Case>,
  runs: number,
): Promise<Record<K, number>> {
  const names = Object.keys(cases) as K[];
  for (const name of names) await cases[name]();
  const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length]!;
      times[name].push(await cases[name]());
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n])])) as Record<K, number>;
}

/** Measures the built packages; undefined when they are not built (tests run from source). */
export async function runColdStartBench(runs: number): Promise<ColdStartResult | undefined> {
  const built = await coldStartCases();
  if (!built) return undefined;
  try {
    return await medianTimes(built.cases, runs);
  } finally {
    built.close();
  }
}
