import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { JSONValue } from '@raf/core';
import type { CodeRun, LimitName } from '../code-run.js';
import { formatByteSize } from '../config/byte-size.js';
import { QUICKJS_PRELUDE, QUICKJS_WORKER_SOURCE } from './quickjs-worker-source.js';

/** QuickJS's stack check; much deeper and V8's own stack (which wasm frames use) overflows first. */
export const JS_STACK_BYTES = 256 * 1024;
/** How long past its deadline a worker may stay silent (a native call QuickJS cannot interrupt). */
const WATCHDOG_GRACE_MS = 5_000;

const require = createRequire(import.meta.url);
/** A compiled `WebAssembly.Module` (the ES2023 lib without DOM has no WebAssembly types). */
type CompiledWasm = object;
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledWasm> };
};
let compiled: Promise<CompiledWasm> | undefined;

/** Compiles the QuickJS WebAssembly once per process; every worker and instance reuses it. */
function compiledModule(): Promise<CompiledWasm> {
  compiled ??= readFile(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')).then((bytes) =>
    wasm.compile(bytes),
  );
  compiled.catch(() => {
    compiled = undefined;
  });
  return compiled;
}

interface WorkerOutcome {
  stdout: string;
  stderr: string;
  result?: JSONValue;
  error?: string;
  limit?: LimitName;
  stateReset?: boolean;
  aborted?: boolean;
  truncated?: boolean;
}

interface Pending {
  resolve(outcome: WorkerOutcome): void;
}

export interface JsSettings {
  memoryBytes: number;
  outputBytes: number;
  timeoutSecs: number;
  persist: boolean;
}

/**
 * JavaScript in QuickJS on a worker thread, one WebAssembly instance per session key. The script
 * sees the language and a captured `console`; nothing of the host (no `require`, `process`,
 * timers, `fetch`). Time, memory, stack and output are limited; an abort interrupts it.
 */
export class JsSandbox {
  private worker: Worker | undefined;
  private readonly flags = new Int32Array(new SharedArrayBuffer(4));
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly settings: JsSettings) {}

  /** Starts the worker thread (and compiles the WebAssembly) ahead of the first call. */
  async warmUp(): Promise<void> {
    await this.start();
  }

  private async start(): Promise<Worker> {
    if (this.worker) return this.worker;
    const wasmModule = await compiledModule();
    if (this.worker) return this.worker;
    const worker = new Worker(QUICKJS_WORKER_SOURCE, {
      eval: true,
      workerData: {
        corePath: require.resolve('quickjs-emscripten-core'),
        variantPath: require.resolve('@jitl/quickjs-wasmfile-release-sync'),
        wasmModule,
        flags: this.flags.buffer,
        prelude: QUICKJS_PRELUDE,
        stackBytes: JS_STACK_BYTES,
      },
    });
    worker.on('message', (message: { id: number; outcome: WorkerOutcome }) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      waiting?.resolve(message.outcome);
    });
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const waiting of this.pending.values())
        waiting.resolve({
          stdout: '',
          stderr: '',
          error: `the interpreter stopped: ${why}`,
          stateReset: true,
        });
      this.pending.clear();
    };
    worker.on('error', (error) => lost(error.message));
    worker.on('exit', () => lost('its worker exited'));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Runs `code` in the session `key`'s interpreter (kept between calls when `persist`). */
  async run(
    key: string,
    code: string,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CodeRun> {
    options.signal.throwIfAborted();
    const worker = await this.start();
    const id = this.nextId++;
    const onAbort = () => Atomics.store(this.flags, 0, id);
    options.signal.addEventListener('abort', onAbort, { once: true });
    let watchdog: NodeJS.Timeout | undefined;
    const outcome = await new Promise<WorkerOutcome>((resolve) => {
      this.pending.set(id, { resolve });
      worker.ref();
      worker.postMessage({
        type: 'run',
        id,
        key,
        code,
        timeoutMs: options.timeoutMs,
        memoryBytes: this.settings.memoryBytes,
        outputBytes: this.settings.outputBytes,
        persist: this.settings.persist,
      });
      // A native call QuickJS cannot interrupt: the whole worker goes, with every session's state.
      watchdog = setTimeout(() => {
        this.pending.delete(id);
        resolve({
          stdout: '',
          stderr: '',
          error: 'the interpreter did not stop',
          limit: 'timeout_secs',
          stateReset: true,
        });
        void this.terminate();
      }, options.timeoutMs + WATCHDOG_GRACE_MS);
    });
    clearTimeout(watchdog);
    options.signal.removeEventListener('abort', onAbort);
    return this.describe(outcome, options.timeoutMs);
  }

  private describe(outcome: WorkerOutcome, timeoutMs: number): CodeRun {
    const run: CodeRun = { stdout: outcome.stdout, stderr: outcome.stderr };
    if (outcome.result !== undefined) run.result = outcome.result;
    if (outcome.stateReset) run.stateReset = true;
    const { limit } = outcome;
    if (limit === 'timeout_secs') {
      run.timedOut = true;
      run.limit = { name: limit, detail: `the code ran longer than ${timeoutMs / 1000} s and was stopped` };
    } else if (limit === 'output_limit') {
      run.limit = {
        name: limit,
        detail: `the code wrote more than ${formatByteSize(this.settings.outputBytes)} of console output and was stopped`,
      };
    } else if (limit === 'memory_limit') {
      run.limit = {
        name: limit,
        detail: `the code needed more than ${formatByteSize(this.settings.memoryBytes)} of memory`,
      };
    } else if (limit === 'stack_limit') {
      run.limit = {
        name: limit,
        detail: `recursion went deeper than the interpreter's ${formatByteSize(JS_STACK_BYTES)} stack allows`,
      };
    }
    // A limit says what happened; QuickJS's own "InternalError: interrupted" adds nothing.
    if (outcome.error !== undefined && (!run.limit || /^the interpreter/.test(outcome.error)))
      run.error = outcome.error;
    return run;
  }

  /** Frees one session's interpreter. */
  drop(key: string): void {
    this.worker?.postMessage({ type: 'drop', key });
  }

  /** Stops the worker and frees every session's interpreter. */
  async terminate(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    for (const waiting of this.pending.values())
      waiting.resolve({ stdout: '', stderr: '', error: 'the interpreter was stopped', stateReset: true });
    this.pending.clear();
    await worker.terminate();
  }
}
