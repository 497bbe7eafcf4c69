import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { workerThreads } from '../../lazy-builtins.js';
import { SEARCH_LIMITS } from './search-limits.js';
import { SHARED, type WalkJob, type WalkReply } from './walker-protocol.js';

interface Pending {
  job: WalkJob;
  owner: object;
  /** Called with the reply (`cancelled` when the job was dropped because its owner gave up). */
  done(reply: WalkReply): void;
  /** Whether a stuck run may be retried on the linear engine (asked once, on the stall). */
  canGoLinear: boolean;
}

interface Slot {
  worker: Worker;
  shared: Int32Array;
  running?: Pending;
  lastProgress: number;
  lastChange: number;
}

/**
 * The walker's worker threads: one unit at a time each, a shared queue, and the means to take a
 * worker back: a cooperative cancel flag for a search that has enough results, `terminate()` for
 * one that is aborted or timed out (a regex run cannot be interrupted otherwise), after which the
 * worker is replaced. A worker making no progress for `stallMs` is stuck in one regex run: it is
 * replaced and its unit rerun on a linear-time engine when the pattern allows.
 */
export class WalkerPool {
  private slots: Slot[] | undefined;
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private monitor: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly size = Math.max(1, Math.min(4, availableParallelism())),
    private readonly stallMs: number = SEARCH_LIMITS.stallMs,
  ) {}

  /** Runs a unit; `owner` groups the jobs of one search for `cancel` and `abort`. */
  run(job: Omit<WalkJob, 'id'>, owner: object, canGoLinear: boolean): Promise<WalkReply> {
    return new Promise((resolve) => {
      this.queue.push({ job: { ...job, id: this.nextId++ }, owner, done: resolve, canGoLinear });
      this.dispatch();
    });
  }

  /** The owner needs no more results: queued jobs are dropped, running ones asked to stop. */
  cancel(owner: object): void {
    this.drop(owner);
    for (const slot of this.slots ?? []) {
      if (slot.running?.owner === owner) Atomics.store(slot.shared, SHARED.cancel, slot.running.job.id);
    }
  }

  /** The owner was aborted: queued jobs are dropped, workers running its jobs are replaced. */
  abort(owner: object): void {
    this.drop(owner);
    for (const slot of this.slots ?? []) {
      if (slot.running?.owner === owner) this.replace(slot);
    }
    this.dispatch();
  }

  private drop(owner: object): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const pending = this.queue[i] as Pending;
      if (pending.owner !== owner) continue;
      this.queue.splice(i, 1);
      pending.done({ id: pending.job.id, items: [], cancelled: true });
    }
  }

  private dispatch(): void {
    const slots = this.spawnAll();
    for (const slot of slots) {
      if (slot.running || this.queue.length === 0) continue;
      const pending = this.queue.shift() as Pending;
      slot.running = pending;
      slot.lastChange = performance.now();
      slot.lastProgress = Atomics.load(slot.shared, SHARED.progress);
      slot.worker.ref();
      slot.worker.postMessage(pending.job);
    }
    const busy = slots.some((slot) => slot.running);
    if (busy && !this.monitor) {
      this.monitor = setInterval(() => this.checkStalls(), Math.max(50, this.stallMs / 4));
      this.monitor.unref();
    } else if (!busy && this.monitor) {
      clearInterval(this.monitor);
      this.monitor = undefined;
    }
  }

  private checkStalls(): void {
    const now = performance.now();
    for (const slot of this.slots ?? []) {
      const running = slot.running;
      if (!running) continue;
      const progress = Atomics.load(slot.shared, SHARED.progress);
      if (progress !== slot.lastProgress) {
        slot.lastProgress = progress;
        slot.lastChange = now;
      } else if (now - slot.lastChange > this.stallMs && !running.job.linear && running.canGoLinear) {
        // Stuck in one regex run: rerun the unit first thing on the linear engine.
        this.replace(slot, false);
        this.queue.unshift({ ...running, job: { ...running.job, linear: true } });
        this.dispatch();
      }
    }
  }

  /** Terminates the slot's worker and starts a fresh one. */
  private replace(slot: Slot, dropRunning = true): void {
    const { worker, running } = slot;
    slot.running = undefined;
    worker.removeAllListeners('message');
    worker.removeAllListeners('error');
    worker.on('error', () => {});
    // Node closes the descriptors the worker opened (`trackUnmanagedFds`, on by default).
    void worker.terminate();
    this.start(slot);
    if (dropRunning && running) running.done({ id: running.job.id, items: [], cancelled: true });
  }

  private spawnAll(): Slot[] {
    this.slots ??= Array.from({ length: this.size }, () => this.start({} as Slot));
    return this.slots;
  }

  /** Gives the slot a fresh worker and its shared memory. */
  private start(slot: Slot): Slot {
    const shared = new Int32Array(new SharedArrayBuffer(SHARED.length * 4));
    const worker = startWorker(shared.buffer as SharedArrayBuffer);
    Object.assign(slot, { worker, shared, running: undefined, lastProgress: 0, lastChange: 0 });
    worker.on('message', (reply: WalkReply) => {
      if (slot.worker !== worker) return;
      const running = slot.running;
      if (!running || running.job.id !== reply.id) return;
      slot.running = undefined;
      worker.unref();
      running.done(reply);
      this.dispatch();
    });
    worker.on('error', (error) => {
      // The worker died (it could not load, or ran out of memory): fail its job, start another.
      const running = slot.running;
      if (slot.worker !== worker) return;
      this.start(slot);
      running?.done({ id: running.job.id, items: [], error: `search worker failed: ${error.message}` });
      this.dispatch();
    });
    worker.unref(); // after adding listeners, which ref it again
    return slot;
  }
}

/**
 * Starts `walker-worker`: the built `.js` beside this module (the package's `dist`, or the `raf`
 * bundle, which carries its own copy), or the `.ts` source under tests, loaded through tsx (Node 20
 * cannot load TypeScript, and loader hooks do not reach a worker's entry).
 */
function startWorker(shared: SharedArrayBuffer): Worker {
  const { Worker: WorkerThread } = workerThreads();
  const here = import.meta.url;
  if (!here.endsWith('.ts')) {
    return new WorkerThread(new URL('./walker-worker.js', here), {
      workerData: { shared },
      trackUnmanagedFds: true,
    });
  }
  const tsx = createRequire(here).resolve('tsx/cjs/api');
  // Only ever read from source, so not spelled as a literal a bundle would carry as an import.
  const entry = fileURLToPath(new URL(`./walker-worker${here.slice(-3)}`, here));
  return new WorkerThread(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(entry)});`, {
    eval: true,
    workerData: { shared },
    trackUnmanagedFds: true,
  });
}

let shared: WalkerPool | undefined;

/** The pool every local search shares (started on first use). */
export function walkerPool(): WalkerPool {
  shared ??= new WalkerPool();
  return shared;
}
