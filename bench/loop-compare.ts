// Before/after of the warm agent loop in one run: `npx tsx bench/loop-compare.ts --before DIR
// [--rounds N] [--contenders raf,floor]`, DIR a built checkout of an earlier commit (`git archive
// <commit> | tar -x -C DIR`, `pnpm install`, `pnpm build`). Each contender of each checkout runs in
// fresh processes (its own `bench/worker.ts`, 500 warm-up runs, 200 timed), alternating, so machine
// noise hits both alike. Prints CPU ms per tool round (median) and after ÷ before. Contenders must
// exist under the same name in both checkouts (`raf` does; the floor was renamed on this branch).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOOP_ROUNDS } from './agent-loop.js';
import { startServerProcess } from './lib/server.js';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const beforeDir = option('--before');
if (!beforeDir) throw new Error('usage: loop-compare.ts --before DIR [--rounds N] [--contenders raf,floor]');
const trees = { before: resolve(beforeDir), after: fileURLToPath(new URL('..', import.meta.url)) };
const rounds = Number(option('--rounds') ?? 7);
const contenders = (option('--contenders') ?? 'raf').split(',');

// Without NODE_OPTIONS: each checkout's packages load from their built `dist`.
const { NODE_OPTIONS: _, ...env } = process.env;

/** CPU ms per tool round of one fresh process of `tree`'s worker. */
function measureOnce(tree: string, contender: string, baseURL: string): Promise<number> {
  const request = { bench: 'loop', scenario: 'loop', contender, baseURL, warmupOps: 500, ops: 200 };
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', `${tree}/bench/worker.ts`, JSON.stringify(request)],
    {
      cwd: `${tree}/bench`,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolveTime, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${tree}: loop worker for ${contender} exited with ${code}`));
      else
        resolveTime(
          (JSON.parse(out.trim().split('\n').at(-1)!) as { cpuMsPerOp: number }).cpuMsPerOp / LOOP_ROUNDS,
        );
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

const server = await startServerProcess();
try {
  const times = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const order = contenders.flatMap((c) => [`${c}.after`, `${c}.before`]);
    if (round % 2) order.reverse();
    for (const key of order) {
      const [contender, tree] = key.split('.') as [string, keyof typeof trees];
      if (!times.has(key)) times.set(key, []);
      times.get(key)!.push(await measureOnce(trees[tree], contender, server.baseURL));
    }
  }
  console.log(`CPU ms per tool round, median of ${rounds} fresh processes each (500 warm-up runs)`);
  for (const contender of contenders) {
    const [before, after] = [
      median(times.get(`${contender}.before`)!),
      median(times.get(`${contender}.after`)!),
    ];
    console.log(
      `${contender.padEnd(14)} before ${before.toFixed(4)}  after ${after.toFixed(4)}  after ÷ before ${(after / before).toFixed(2)}×`,
    );
  }
  if (args.includes('--json')) console.log(JSON.stringify(Object.fromEntries(times)));
} finally {
  await server.stop();
}
