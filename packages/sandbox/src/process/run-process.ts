import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { timerDelay } from '@raf/core/internal';
import { OutputBudget } from '../code-run.js';

export interface ProcessRunRequest {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  outputBytes: number;
  signal: AbortSignal;
}

export interface ProcessRunOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** What the code wrote to fd 3 (the Python driver's last-expression value). */
  result: string;
  timedOut: boolean;
  outputExceeded: boolean;
  aborted: boolean;
}

const RESULT_BYTES = 100_000;
/** After the main process exits, how long its output pipes may stay open (a straggler holds them). */
const DRAIN_MS = 200;

const SIGNALS: Readonly<Record<string, number>> = { SIGKILL: 9, SIGTERM: 15, SIGSEGV: 11, SIGABRT: 6 };

/**
 * Spawns `argv` in its own process group with stdin closed and a result pipe on fd 3. The wall
 * timeout, the caller's abort and the output budget (stdout + stderr) kill the whole group;
 * so does the end of the run, so nothing the code started in the background outlives it.
 */
export function runProcess(request: ProcessRunRequest): Promise<ProcessRunOutcome> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = request.argv;
    const child = spawn(file as string, args, {
      cwd: request.cwd,
      env: request.env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const budget = new OutputBudget(request.outputBytes);
    let timedOut = false;
    let aborted = false;
    let result = '';
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    const read = (stream: Readable | null, name: 'stdout' | 'stderr') => {
      const decoder = new StringDecoder('utf8');
      stream?.on('data', (chunk: Buffer) => {
        if (!budget.push(name, decoder.write(chunk))) killGroup();
      });
    };
    read(child.stdout, 'stdout');
    read(child.stderr, 'stderr');
    const resultPipe = child.stdio[3] as Readable | null;
    resultPipe?.on('data', (chunk: Buffer) => {
      if (result.length < RESULT_BYTES) result += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timerDelay(request.timeoutMs));
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      killGroup();
      const pipes = [child.stdout, child.stderr, resultPipe];
      let resolved = false;
      const done = () => {
        if (resolved) return;
        resolved = true;
        for (const pipe of pipes) pipe?.destroy();
        resolve({
          exitCode: code ?? 128 + (signal ? (SIGNALS[signal] ?? 9) : 9),
          stdout: budget.text('stdout'),
          stderr: budget.text('stderr'),
          result,
          timedOut,
          outputExceeded: budget.exceeded,
          aborted,
        });
      };
      // Output still in flight is read until the pipes close, or the drain time runs out.
      const open = pipes.filter((p): p is Readable => p !== null && !p.destroyed && !p.readableEnded);
      if (open.length === 0) return done();
      const drain = setTimeout(done, DRAIN_MS);
      let remaining = open.length;
      for (const pipe of open) {
        pipe.once('close', () => {
          if (--remaining === 0) {
            clearTimeout(drain);
            done();
          }
        });
      }
    };
    child.once('error', (error) => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      if (!settled) {
        settled = true;
        reject(error);
      }
    });
    child.once('exit', finish);
    if (request.signal.aborted) onAbort();
  });
}
