import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from '../main.js';
import { createMemoryIO as memoryIO } from '../memory-io.js';

/**
 * What the durable-run tests of the CLI share: `raf` processes each in its own folder (a host),
 * in-process commands, and waits that say what they saw last when they time out.
 */
const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));
// The built binary when there is one (CI builds first: no tsx transpiling the CLI in every process), else the source.
const built = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
const RAF_PROCESS = existsSync(built)
  ? [built]
  : ['--conditions=@raf/source', '--import', import.meta.resolve('tsx'), bin];

export type RafProcess = ReturnType<typeof rafProcess>;

/** A `raf` process in folder `cwd` (RAF_STORE unset: each test names its store); `children` collects it for cleanup. */
export function rafProcess(argv: string[], cwd: string, children: ChildProcess[]) {
  const child = spawn(process.execPath, [...RAF_PROCESS, ...argv], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RAF_STORE: '' },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

/** A `raf` command run in this process, in folder `folder`. */
export async function rafInProcess(folder: string, argv: string[]) {
  const io = memoryIO({ cwd: folder });
  const code = await main(argv, io.io);
  return { code, out: io.out(), err: io.err() };
}

/** Polls `probe` until it gives a value; a timeout names `what` and what `seen` says was last seen. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 120_000,
  seen?: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const last = seen ? await seen().catch((error: unknown) => `(could not look: ${String(error)})`) : '';
      throw new Error(`timed out waiting for ${what}${last ? `; last seen:\n${last}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits for a `raf worker` to say it started; its executor id. */
export function workerStarted(worker: RafProcess): Promise<string> {
  return until(
    'a worker to start',
    async () => {
      if (worker.child.exitCode !== null) throw new Error(`a worker exited: ${worker.output().stderr}`);
      return /raf worker (\S+):/.exec(worker.output().stderr)?.[1];
    },
    180_000,
  );
}
