import { type ChildProcess, spawn } from 'node:child_process';
import { OutputCapture } from './output-capture.js';
import type { ProcessOperations, ProcessRequest, ProcessResult } from './tool-operations.js';

const HEAD_LIMIT = 1_000_000;
const TAIL_LIMIT = 512 * 1024;

function exitOf(child: ChildProcess): Promise<{ code: number | null; error?: Error }> {
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 + 9 : null) }));
  });
}

/** bubblewrap arguments: the whole machine read-only, the workspace roots writable, a private /tmp. */
export function bubblewrapArguments(request: ProcessRequest): string[] {
  const sandbox = request.sandbox;
  if (!sandbox) return [];
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const root of sandbox.writableRoots) args.push('--bind', root, root);
  if (!sandbox.network) args.push('--unshare-net');
  args.push('--unshare-pid', '--die-with-parent', '--new-session', '--chdir', request.cwd);
  return args;
}

let confinable: Promise<boolean> | undefined;

/** Runs `sh -c` on this machine; confines with bubblewrap when asked and installed. */
export class LocalProcessOperations implements ProcessOperations {
  constructor(private readonly options: { bubblewrapPath?: string } = {}) {}

  canConfine(): Promise<boolean> {
    const bwrap = this.options.bubblewrapPath ?? 'bwrap';
    if (this.options.bubblewrapPath !== undefined) return this.probe(bwrap);
    confinable ??= this.probe(bwrap);
    return confinable;
  }

  private async probe(bwrap: string): Promise<boolean> {
    if (process.platform !== 'linux') return false;
    const child = spawn(bwrap, ['--ro-bind', '/', '/', '--unshare-net', 'true'], { stdio: 'ignore' });
    const { code } = await exitOf(child);
    return code === 0;
  }

  async run(request: ProcessRequest): Promise<ProcessResult> {
    request.signal.throwIfAborted();
    const confine = request.sandbox !== undefined && (await this.canConfine());
    const [file, args] = confine
      ? [
          this.options.bubblewrapPath ?? 'bwrap',
          [...bubblewrapArguments(request), 'sh', '-c', request.command],
        ]
      : ['sh', ['-c', request.command]];
    const child = spawn(file, args, {
      cwd: request.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a timeout or cancel kills the command's children too.
      detached: true,
    });
    const stdout = new OutputCapture(HEAD_LIMIT, TAIL_LIMIT);
    const stderr = new OutputCapture(HEAD_LIMIT, TAIL_LIMIT);
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    const kill = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, request.timeoutMs);
    request.signal.addEventListener('abort', kill, { once: true });
    try {
      const { code, error } = await exitOf(child);
      if (error) throw error;
      request.signal.throwIfAborted();
      return {
        exitCode: code ?? -1,
        stdout: stdout.result(),
        stderr: stderr.result(),
        timedOut,
        confinement: confine ? 'bubblewrap' : 'none',
      };
    } finally {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', kill);
    }
  }
}
