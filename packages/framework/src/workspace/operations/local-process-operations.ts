import type { ChildProcess } from 'node:child_process';
import { timerDelay } from '@raf/core/internal';
import { childProcess } from '../../lazy-builtins.js';
import { bubblewrapArguments, systemMountArguments } from './bubblewrap-arguments.js';
import { commandEnvironment } from './command-environment.js';
import { OutputCapture } from './output-capture.js';
import { groupWatchdog } from './parent-death.js';
import type { ProcessOperations, ProcessRequest, ProcessResult } from './tool-operations.js';

const HEAD_LIMIT = 1_000_000;
const TAIL_LIMIT = 512 * 1024;

function exitOf(child: ChildProcess): Promise<{ code: number | null; error?: Error }> {
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 + 9 : null) }));
  });
}

interface Confinement {
  available: boolean;
  /** Whether bubblewrap can give the command its own user namespace on this machine. */
  userNamespace: boolean;
}

const probes = new Map<string, Promise<Confinement>>();

/** Runs `sh -c` on this machine; confines with bubblewrap when asked and installed. */
export class LocalProcessOperations implements ProcessOperations {
  constructor(private readonly options: { bubblewrapPath?: string } = {}) {}

  private get bwrap(): string {
    return this.options.bubblewrapPath ?? 'bwrap';
  }

  private confinement(): Promise<Confinement> {
    let probe = probes.get(this.bwrap);
    if (!probe) {
      probe = this.probe();
      probes.set(this.bwrap, probe);
    }
    return probe;
  }

  async canConfine(): Promise<boolean> {
    return (await this.confinement()).available;
  }

  /** Tries the flags every sandbox uses, then the same with a new user namespace. */
  private async probe(): Promise<Confinement> {
    if (process.platform !== 'linux') return { available: false, userNamespace: false };
    const attempt = async (extra: string[]) => {
      const args = ['--ro-bind', '/', '/', ...extra, '--unshare-pid', '--unshare-ipc', '--unshare-net'];
      args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', 'true');
      const { code } = await exitOf(childProcess().spawn(this.bwrap, args, { stdio: 'ignore' }));
      return code === 0;
    };
    if (!(await attempt([]))) return { available: false, userNamespace: false };
    return { available: true, userNamespace: await attempt(['--unshare-user']) };
  }

  async run(request: ProcessRequest): Promise<ProcessResult> {
    request.signal.throwIfAborted();
    const confinement = request.sandbox ? await this.confinement() : undefined;
    // Unconfined, the command runs beside a watchdog that kills its process group when raf dies;
    // bubblewrap's `--die-with-parent` does that for a confined one.
    let { file, args }: { file: string; args: string[] } = groupWatchdog(request.command);
    let watched = true;
    if (request.sandbox && confinement?.available) {
      const sandbox = bubblewrapArguments(request, request.sandbox, {
        systemMounts: await systemMountArguments(),
        userNamespace: confinement.userNamespace,
      });
      file = this.bwrap;
      args = [...sandbox, 'sh', '-c', request.command];
      watched = false;
    }
    const confine = !watched;
    const child = childProcess().spawn(file, args, {
      cwd: request.cwd,
      // Never this process's environment as is: provider keys and tokens stay out.
      env: request.env ?? commandEnvironment(process.env),
      // fd 3: the watchdog's pipe; only this process holds its other end.
      stdio: watched ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
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
    }, timerDelay(request.timeoutMs));
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
