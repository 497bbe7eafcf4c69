import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from '../main.js';
import { createMemoryIO as memoryIO } from '../memory-io.js';

/**
 * What the tests of durable runs through the CLI share (durable*.test.ts): `raf` processes, each
 * in its own folder standing in for a host, short commands in this process, a wait that says what
 * it saw last, and `raf runs show --json`.
 */
const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));
// The built binary when there is one (CI builds first: no tsx transpiling the CLI in every process), else the source.
const built = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
const RAF_PROCESS = existsSync(built)
  ? [built]
  : ['--conditions=@raf/source', '--import', import.meta.resolve('tsx'), bin];

export interface RafProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
}

/** Whether `script` (util-linux) is here to give a process a terminal (`{ terminal: true }`). */
export const hasScript = spawnSync('script', ['--version']).status === 0;

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * Starts `raf argv…` in `cwd` (no `RAF_STORE` from the environment); `children` keeps it for the
 * cleanup. With `terminal`, under `script`: its stdin and stdout are a terminal (what it prints
 * comes on stdout, both streams), and the test writes the keys on `child.stdin`.
 */
export function spawnRaf(
  argv: string[],
  cwd: string,
  children: ChildProcess[],
  options: { terminal?: boolean } = {},
): RafProcess {
  const command = [process.execPath, ...RAF_PROCESS, ...argv];
  const [file, args] = options.terminal
    ? ['script', ['-qec', command.map(quote).join(' '), '/dev/null']]
    : [command[0]!, command.slice(1)];
  const child = spawn(file, args, {
    cwd,
    stdio: [options.terminal ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: { ...process.env, RAF_STORE: '' },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

const started: ChildProcess[] = [];

/** `raf ARGV` in `cwd` as a process of its own, killed by `killRafProcesses`. */
export function raf(argv: string[], cwd: string, options: { terminal?: boolean } = {}): RafProcess {
  return spawnRaf(argv, cwd, started, options);
}

/** Kills every `raf` process `raf()` started (a test file's afterAll). */
export function killRafProcesses(): void {
  for (const child of started.splice(0)) child.kill('SIGKILL');
}

/** `raf ARGV` in this process (a short command: `raf runs show`, `raf approve`). */
export async function inProcess(folder: string, argv: string[]) {
  const io = memoryIO({ cwd: folder });
  const code = await main(argv, io.io);
  return { code, out: io.out(), err: io.err() };
}

/**
 * Polls `probe` every 100 ms until it gives a value (`false` and `undefined` mean not yet); past
 * `ms`, fails naming `what` and, with `seen`, what the wait saw last: a timeout says why.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  ms = 120_000,
  seen?: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      const last = seen ? await seen().catch((error: unknown) => `(could not look: ${String(error)})`) : '';
      throw new Error(`timed out waiting for ${what}${last ? `; last seen:\n${last}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The lines of a `--json` run's stdout, parsed. */
export function jsonLines<T = { type: string; runId?: string; reason?: string; callId?: string }>(
  stdout: string,
): T[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
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

/** A `raf worker` on `store` in `cwd`, once it has said its executor id. */
export async function startWorker(
  argv: { store: string; concurrency: number },
  cwd: string,
  children: ChildProcess[],
): Promise<{ worker: RafProcess; id: string }> {
  const worker = spawnRaf(
    ['worker', '--store', argv.store, '--concurrency', String(argv.concurrency)],
    cwd,
    children,
  );
  return { worker, id: await workerStarted(worker) };
}

export interface ShownRun {
  status: string;
  text?: string;
  /** The process that holds (or last held) the run. */
  executor?: string;
  delegations?: {
    runId: string;
    subAgent?: string;
    status: string;
    executor?: string;
    text?: string;
    error?: string;
  }[];
}

/** `raf runs show RUN_ID --json` from `folder`, in this process (undefined when it fails). */
export async function showRun(store: string, folder: string, runId: string): Promise<ShownRun | undefined> {
  const io = memoryIO({ cwd: folder });
  const code = await main(['runs', 'show', runId, '--store', store, '--json'], io.io);
  return code === 0 ? (JSON.parse(io.out()) as ShownRun) : undefined;
}
