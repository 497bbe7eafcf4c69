import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { childProcess } from '../lazy-builtins.js';
import { type ParentMessage, workerMessageSchema } from './worker-protocol.js';

/** How long a worker has to end after SIGTERM before it is killed. */
export const KILL_GRACE_MS = 2000;

/**
 * The worker's entry: `sub-agent-worker.js` beside this module once built (the package's `dist/`,
 * or the CLI bundle's folder), else the TypeScript source under tsx (tests).
 */
function workerEntry(): { path: string; execArgv: string[] } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) {
    // The parent's own flags, as `fork` passes them (a loader the factory module needs), but no
    // debugger: a second one would fight over the port.
    const inherited = process.execArgv.filter((a) => !a.startsWith('--inspect'));
    return { path: fileURLToPath(new URL('./sub-agent-worker.js', here)), execArgv: inherited };
  }
  const tsx = pathToFileURL(createRequire(here).resolve('tsx')).href;
  // Only ever read from source, so not spelled as a literal a bundle would carry as an import.
  const entry = fileURLToPath(new URL(`./sub-agent-worker${here.slice(-3)}`, here));
  return { path: entry, execArgv: ['--conditions=@raf/source', '--import', tsx] };
}

/**
 * The folder of the code a sub-agent's worker process runs (its entry and the chunks it
 * imports): what an agent with sub-agents executes at each delegation, so its workspaces protect
 * it (SPEC §9). The package's `dist/`, the CLI bundle's folder, or the sources under tsx.
 */
export function workerModuleFolder(): string {
  return dirname(workerEntry().path);
}

/** One worker child process: started idle, used for one delegation, then ended. */
export class WorkerProcess {
  readonly child: ChildProcess;
  /** Settles when the process has exited (never rejects). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once the worker says it is loaded; false if it exits first. */
  readonly ready: Promise<boolean>;
  private killTimer: ReturnType<typeof setTimeout> | undefined;

  private constructor(child: ChildProcess) {
    this.child = child;
    this.ready = new Promise((resolve) => {
      const onMessage = (message: unknown) => {
        const parsed = workerMessageSchema().safeParse(message);
        if (!parsed.success || parsed.data.type !== 'ready') return;
        child.off('message', onMessage);
        resolve(true);
      };
      child.on('message', onMessage);
      child.once('close', () => resolve(false));
    });
    this.exited = new Promise((resolve) => {
      // 'close', not 'exit': by then every message the worker sent has been delivered.
      child.once('close', (code, signal) => {
        if (this.killTimer) clearTimeout(this.killTimer);
        resolve({ code, signal });
      });
      // A process that could not start at all.
      child.once('error', () => resolve({ code: null, signal: null }));
    });
  }

  /** Forks a worker; `preload` modules are imported while it waits for its `start` (a warm spare). */
  static start(preload: readonly string[] = []): WorkerProcess {
    const entry = workerEntry();
    const child = childProcess().fork(entry.path, [], {
      execArgv: entry.execArgv,
      env: { ...process.env, RAF_WORKER_PRELOAD: JSON.stringify(preload) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
    });
    return new WorkerProcess(child);
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Whether the process may keep this one alive: a spare or parked worker must not. */
  hold(held: boolean): void {
    const channel = (this.child as { channel?: { ref(): void; unref(): void } }).channel;
    if (held) {
      this.child.ref();
      channel?.ref();
    } else {
      this.child.unref();
      channel?.unref();
    }
  }

  send(message: ParentMessage): void {
    if (!this.alive || !this.child.connected) return;
    try {
      this.child.send(message);
    } catch {
      // The worker is gone; its exit ends the delegation.
    }
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. */
  async stop(graceMs = KILL_GRACE_MS): Promise<void> {
    if (this.alive) {
      this.child.kill('SIGTERM');
      this.killTimer ??= setTimeout(() => {
        if (this.alive) this.child.kill('SIGKILL');
      }, graceMs);
    }
    await this.exited;
  }
}

/**
 * Spare workers started ahead of need (a warm pool of one by default), so a delegation does not
 * wait for a process to boot and load its modules. Spares never keep the parent alive.
 */
export class WorkerPool {
  private readonly spares: WorkerProcess[] = [];
  private closed = false;

  constructor(
    private readonly size = 1,
    private readonly preload: readonly string[] = [],
  ) {}

  /** A worker ready for a `start`: a spare when there is one (and another is started behind it). */
  take(): WorkerProcess {
    let worker: WorkerProcess | undefined;
    while (!worker && this.spares.length > 0) {
      const spare = this.spares.shift()!;
      if (spare.alive) worker = spare;
    }
    worker ??= WorkerProcess.start(this.preload);
    worker.hold(true);
    this.fill();
    return worker;
  }

  /** Starts spares up to the pool size. */
  fill(): void {
    if (this.closed) return;
    while (this.spares.length < this.size) {
      const spare = WorkerProcess.start(this.preload);
      spare.hold(false);
      this.spares.push(spare);
    }
    // While the spares boot: the schema their messages are checked against is built now, not in
    // the first delegation's time to its first model request.
    workerMessageSchema();
  }

  /** Fills the pool and resolves once the spares are loaded (holding the process open until then). */
  async ready(): Promise<void> {
    this.fill();
    const waiting = [...this.spares];
    for (const spare of waiting) spare.hold(true);
    await Promise.all(waiting.map((spare) => spare.ready));
    // Still spares (not taken meanwhile): they must not keep the process alive.
    for (const spare of waiting) if (this.spares.includes(spare)) spare.hold(false);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.spares.splice(0).map((spare) => spare.stop()));
  }
}
