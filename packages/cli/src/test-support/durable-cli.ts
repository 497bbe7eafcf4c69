import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../main.js';
import { createMemoryIO as memoryIO } from '../memory-io.js';

// The processes of the CLI's durable-run tests (durable.test.ts, durable-workflow-pause.test.ts):
// each `raf` a real process in its own folder standing in for a host, from source.

const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));
const children: ChildProcess[] = [];

/** `raf ARGV` in `cwd` as a process of its own (RAF_STORE unset: each test names its store). */
export function raf(argv: string[], cwd: string) {
  const child = spawn(
    process.execPath,
    ['--conditions=@raf/source', '--import', import.meta.resolve('tsx'), bin, ...argv],
    {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RAF_STORE: '' },
    },
  );
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

/** Kills every `raf` process the tests of this file started (their afterAll). */
export function killRafProcesses(): void {
  for (const child of children.splice(0)) child.kill('SIGKILL');
}

/** `raf ARGV` in this process (a short command: `raf runs show`, `raf approve`). */
export async function inProcess(folder: string, argv: string[]) {
  const io = memoryIO({ cwd: folder });
  const code = await main(argv, io.io);
  return { code, out: io.out(), err: io.err() };
}

/** Polls `probe` every 100 ms until it is true, or fails naming `what` after `ms`. */
export async function until(what: string, probe: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
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
