// Cold start of the CLI as whole processes: `raf validate` and `raf inspect` on the quickstart,
// against `node -e 0` (the floor). Medians of alternating runs, so machine noise hits all alike.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const bin = `${repo}packages/cli/dist/bin.js`;
const agent = `${repo}examples/quickstart/agent.yaml`;

export interface ColdStartResult {
  node: number;
  validate: number;
  inspect: number;
}

function once(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: 'ignore', cwd: repo });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else resolve(performance.now() - started);
    });
  });
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Measures the built CLI; undefined when it is not built (tests run from source). */
export async function runColdStartBench(runs: number): Promise<ColdStartResult | undefined> {
  if (!existsSync(bin)) return undefined;
  const times: Record<keyof ColdStartResult, number[]> = { node: [], validate: [], inspect: [] };
  await once([bin, 'validate', agent]); // warm the page cache
  for (let i = 0; i < runs; i++) {
    times.node.push(await once(['-e', '0']));
    times.validate.push(await once([bin, 'validate', agent]));
    times.inspect.push(await once([bin, 'inspect', agent]));
  }
  return { node: median(times.node), validate: median(times.validate), inspect: median(times.inspect) };
}
