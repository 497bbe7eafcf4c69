import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface ServerProcess {
  baseURL: string;
  stop(): Promise<void>;
}

/** Starts `lib/mock-server-process.ts` in a child process and waits for its address. */
export async function startServerProcess(): Promise<ServerProcess> {
  const script = fileURLToPath(new URL('./mock-server-process.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const baseURL = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mock server process exited with ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { baseURL: string }).baseURL));
  });
  return {
    baseURL,
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
