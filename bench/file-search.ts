// search_file and find_files against rg, grep -rn and find, in one run, on a generated tree or on
// a real one (hard-linked copies of the repository's node_modules/.pnpm). Run alone:
// `npx tsx bench/file-search.ts [--real] [--runs N]` (the framework must be built).
import { spawn } from 'node:child_process';
import type { ITool } from '@raf/core';
import { createFileTool, createLocalToolOperations, WorkspaceContextProvider } from '@raf/framework';
import { makeTree, NEEDLE } from './lib/make-tree.js';
import { makeRealTree } from './lib/real-tree.js';

export interface SearchBenchOptions {
  /** `generated`: `files` small text files; `real`: a node_modules tree of at least `files` files. */
  tree: 'generated' | 'real';
  files: number;
  runs: number;
}

/** Median wall milliseconds per contender (undefined when its program is not installed). */
export type SearchBenchResult = Record<string, number | undefined>;

function runProgram(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'ignore'] });
    child.once('error', () => resolve(false));
    child.once('close', () => resolve(true));
  });
}

async function median(runs: number, work: () => Promise<boolean>): Promise<number | undefined> {
  if (!(await work())) return undefined; // warm-up (page cache), and "is it installed?"
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** The tool as a workspace hands it to the model: bound to `root`, on the given backend. */
function scoped(name: 'search_file' | 'find_files', root: string, engine?: 'ripgrep' | 'walker'): ITool {
  const workspace = new WorkspaceContextProvider(
    { root, name: 'bench', policy: 'AllowAll' },
    engine ? { operations: createLocalToolOperations({ search: { engine } }) } : {},
  ).addTool(createFileTool(name));
  return workspace.tools[0] as ITool;
}

export async function runSearchBench(
  options: SearchBenchOptions,
): Promise<SearchBenchResult & { files: number }> {
  const real = options.tree === 'real';
  const { root, files } = real
    ? await makeRealTree(options.files)
    : { root: await makeTree(options.files), files: options.files };
  const signal = new AbortController().signal;
  const context = { signal, callId: 'bench' };
  const searchWith = (engine: 'ripgrep' | 'walker') => scoped('search_file', root, engine);
  const viaTool = (tool: ITool, args: Record<string, unknown>, expected: number | undefined) => async () => {
    const result = await tool.execute(args, context);
    const data = result.data as { total?: number; count?: number } | undefined;
    const count = data?.total ?? data?.count;
    if (!result.ok || (expected !== undefined && count !== expected))
      throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 300)}`);
    return true;
  };
  // The real tree holds no needle and no file named after it: both searches walk everything.
  const expectedMatches = real ? 0 : Math.ceil((options.files - 7) / 500);
  const glob = real ? `*${NEEDLE}*` : '*.md';
  const expectedFiles = real ? 0 : Math.min(500, options.files / 10);
  const hasRg = await runProgram('rg', ['--version']);
  const find = scoped('find_files', root);
  const search = { pattern: NEEDLE, directory: '.' };
  return {
    files,
    rg: await median(options.runs, () => runProgram('rg', ['-n', NEEDLE, root])),
    // The price of deterministic results: one thread walking in path order.
    rgSorted: await median(options.runs, () => runProgram('rg', ['-n', '--sort=path', NEEDLE, root])),
    grep: await median(options.runs, () => runProgram('grep', ['-rn', NEEDLE, root])),
    searchRipgrep: hasRg
      ? await median(options.runs, viaTool(searchWith('ripgrep'), search, expectedMatches))
      : undefined,
    searchWalker: await median(options.runs, viaTool(searchWith('walker'), search, expectedMatches)),
    rgFiles: await median(options.runs, () => runProgram('rg', ['--files', '-g', glob, root])),
    findName: await median(options.runs, () => runProgram('find', [root, '-name', glob])),
    findFiles: await median(options.runs, viaTool(find, { pattern: `**/${glob}` }, expectedFiles)),
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  const args = process.argv.slice(2);
  const real = args.includes('--real');
  const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 5;
  const result = await runSearchBench({
    tree: real ? 'real' : 'generated',
    files: real ? 100_000 : 50_000,
    runs,
  });
  const r = (a?: number, b?: number) =>
    a === undefined || b === undefined ? 'n/a' : `${(a / b).toFixed(2)}×`;
  console.log(JSON.stringify(result));
  console.log(
    `walker/grep -rn ${r(result.searchWalker, result.grep)} · ripgrep engine/rg ${r(result.searchRipgrep, result.rg)} · rg --sort path/rg ${r(result.rgSorted, result.rg)} · find_files/rg --files ${r(result.findFiles, result.rgFiles)} · find_files/find ${r(result.findFiles, result.findName)}`,
  );
}
