// search_file and find_files over a generated tree, against rg and grep -rn (and find), in one run.
import { spawn } from 'node:child_process';
import type { ITool } from '@raf/core';
import { createFileTool, createLocalToolOperations, WorkspaceContextProvider } from '@raf/framework';
import { makeTree, NEEDLE } from './lib/make-tree.js';

export interface SearchBenchOptions {
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

export async function runSearchBench(options: SearchBenchOptions): Promise<SearchBenchResult> {
  const root = await makeTree(options.files);
  const signal = new AbortController().signal;
  const context = { signal, callId: 'bench' };
  const searchWith = (engine: 'ripgrep' | 'walker') => scoped('search_file', root, engine);
  const viaTool = (tool: ITool, args: Record<string, unknown>, expected: number) => async () => {
    const result = await tool.execute(args, context);
    const count =
      (result.data as { total?: number; count?: number } | undefined)?.total ??
      (result.data as { count?: number }).count;
    if (!result.ok || count !== expected)
      throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 300)}`);
    return true;
  };
  const expectedMatches = Math.ceil((options.files - 7) / 500);
  const hasRg = await runProgram('rg', ['--version']);
  const find = scoped('find_files', root);
  return {
    rg: await median(options.runs, () => runProgram('rg', ['-n', NEEDLE, root])),
    grep: await median(options.runs, () => runProgram('grep', ['-rn', NEEDLE, root])),
    searchRipgrep: hasRg
      ? await median(
          options.runs,
          viaTool(searchWith('ripgrep'), { pattern: NEEDLE, directory: '.' }, expectedMatches),
        )
      : undefined,
    searchWalker: await median(
      options.runs,
      viaTool(searchWith('walker'), { pattern: NEEDLE, directory: '.' }, expectedMatches),
    ),
    rgFiles: await median(options.runs, () => runProgram('rg', ['--files', '-g', '*.md', root])),
    findName: await median(options.runs, () => runProgram('find', [root, '-name', '*.md'])),
    findFiles: await median(
      options.runs,
      viaTool(find, { pattern: '**/*.md' }, Math.min(500, options.files / 10)),
    ),
  };
}
