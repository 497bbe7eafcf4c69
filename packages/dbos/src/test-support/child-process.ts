import { spawn } from 'node:child_process';

/**
 * A test's child process (a TypeScript script under tsx, from source) with its output kept:
 * `effects(n)` resolves once it reported `ready` and `n` side effects (or exited). The kill -9
 * tests of durable runs and durable workflows drive their children through it.
 */
export function startChild(script: string, args: string[]) {
  const child = spawn(process.execPath, ['--conditions=@raf/source', '--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const effects = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (stdout.includes('ready\n') && stdout.split('effect\n').length - 1 >= count) resolve();
      };
      child.stdout.on('data', check);
      check();
      void exited.then(() => resolve());
    });
  return { child, exited, effects, output: () => ({ stdout, stderr }) };
}

/** Polls `probe` until it answers something, or fails naming `what` after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
