// Before/after of the cold path in one run: `npx tsx bench/cold-compare.ts --before DIR [--runs N]`,
// DIR a built checkout of an earlier commit (`git worktree add`, `pnpm install`, `pnpm build`).
// The same processes as `--only cold-start` and raf's `--only cold-run`, for both checkouts,
// interleaved, so machine noise hits both alike. Prints median wall ms and after ÷ before.
import { resolve } from 'node:path';
import { coldRun, compileColdRunChild } from './cold-run.js';
import { type ColdStartResult, coldStartCases, medianTimes } from './cold-start.js';
import { startServerProcess } from './lib/server.js';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const beforeDir = option('--before');
if (!beforeDir) throw new Error('usage: cold-compare.ts --before DIR [--runs N]');
const before = `${resolve(beforeDir)}/`;
const runs = Number(option('--runs') ?? 15);

const server = await startServerProcess();
const trees = { before: await coldStartCases(before), after: await coldStartCases() };
try {
  if (!trees.before || !trees.after) throw new Error('both checkouts must be built (pnpm build)');
  const children = { before: await compileColdRunChild(before), after: await compileColdRunChild() };
  const cases: Record<string, () => Promise<number>> = { node: trees.after.cases.node };
  for (const tree of ['before', 'after'] as const) {
    const { node: _, ...processes } = trees[tree]!.cases;
    for (const [name, run] of Object.entries(processes)) cases[`${name}.${tree}`] = run;
    cases[`coldRunRaf.${tree}`] = () => coldRun(children[tree], 'raf', server.baseURL);
  }
  const ms = await medianTimes(cases, runs);
  const names: (Exclude<keyof ColdStartResult, 'node'> | 'coldRunRaf')[] = [
    'importFramework',
    'validate',
    'inspect',
    'runToFirstRequest',
    'runToExit',
    'coldRunRaf',
  ];
  console.log(`median wall ms of ${runs} runs each; node -e 0: ${ms.node!.toFixed(0)} ms`);
  console.log('process              | before (over node) | after (over node) | after ÷ before | over node');
  for (const name of names) {
    const [b, a] = [ms[`${name}.before`]!, ms[`${name}.after`]!];
    const over = (v: number) => `${v.toFixed(0)} (+${(v - ms.node!).toFixed(0)})`;
    console.log(
      `${name.padEnd(20)} | ${over(b).padStart(18)} | ${over(a).padStart(17)} | ${(a / b).toFixed(2).padStart(13)}× | ${((a - ms.node!) / (b - ms.node!)).toFixed(2)}×`,
    );
  }
  if (args.includes('--json')) console.log(JSON.stringify(ms));
} finally {
  trees.before?.close();
  trees.after?.close();
  await server.stop();
}
