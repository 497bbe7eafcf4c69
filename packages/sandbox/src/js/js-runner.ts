import type { JSONValue } from '@raf/core';
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { formatByteSize } from '../config/byte-size.js';
import { type CodeRun, OutputBudget } from '../code-run.js';
import { newQuickJsInstance, type QuickJsInstance } from './quickjs-engine.js';

/** QuickJS's stack check; above it the host's own stack overflows first (wasm frames use V8's). */
export const JS_STACK_BYTES = 256 * 1024;
const RESULT_CHARS = 100_000;

/**
 * Installs `console` (log/info/debug → stdout, warn/error → stderr) around a host `emit` that is
 * never reachable from the global scope, and returns `show(value)`: the value as JSON text
 * (`{"value":…}`) or, for what JSON cannot hold, its string form (`{"text":…}`).
 */
const PRELUDE = `(function (emit) {
  const text = (v) => {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return String(v.stack ? v + '\\n' + v.stack : v);
    try { const j = JSON.stringify(v); return j === undefined ? String(v) : j; } catch { return String(v); }
  };
  const line = (args) => args.map(text).join(' ') + '\\n';
  const console = {};
  for (const [name, stream] of [['log', 1], ['info', 1], ['debug', 1], ['warn', 2], ['error', 2]])
    console[name] = (...args) => { emit(stream, line(args)); };
  Object.defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true });
  return (v) => {
    if (typeof v === 'function' || typeof v === 'symbol') return JSON.stringify({ text: String(v) });
    try {
      const j = JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? String(x) : x));
      return j === undefined ? JSON.stringify({ text: String(v) }) : '{"value":' + j + '}';
    } catch { return JSON.stringify({ text: String(v) }); }
  };
})`;

type StopReason = 'timeout' | 'output' | 'aborted';

interface Live {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  show: QuickJSHandle;
  /** Where the console of the current call writes. */
  sink: { budget: OutputBudget };
}

export interface JsRunOptions {
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Runs JavaScript in one QuickJS instance: a fresh runtime per call, or (persist) one runtime and
 * context kept across calls so a model can build state step by step. The script sees the language
 * and a captured `console`, nothing of the host: no `require`, no timers, no I/O.
 */
export class JsRunner {
  private instance: QuickJsInstance | undefined;
  private live: Live | undefined;
  /** Set when the instance crashed (a host stack overflow inside WebAssembly): never reused. */
  private broken = false;

  constructor(
    private readonly settings: { memoryBytes: number; outputBytes: number; persist: boolean },
  ) {}

  async run(code: string, options: JsRunOptions): Promise<CodeRun> {
    if (this.broken) this.reset();
    this.instance ??= await newQuickJsInstance(this.settings.memoryBytes);
    const instance = this.instance;
    const budget = new OutputBudget(this.settings.outputBytes);
    const deadline = Date.now() + options.timeoutMs;
    let stop: StopReason | undefined;
    let live: Live | undefined;
    try {
      live = this.live ?? this.create(instance);
      live.sink.budget = budget;
      live.runtime.setInterruptHandler(() => {
        if (options.signal.aborted) stop = 'aborted';
        else if (budget.exceeded) stop = 'output';
        else if (Date.now() > deadline) stop = 'timeout';
        return stop !== undefined;
      });
      const outcome = this.evaluate(live, code);
      const run: CodeRun = { stdout: budget.text('stdout'), stderr: budget.text('stderr'), ...outcome };
      if (stop === 'timeout') {
        run.timedOut = true;
        run.limit = {
          name: 'timeout_secs',
          detail: `the code ran longer than ${options.timeoutMs / 1000} s and was stopped`,
        };
      } else if (stop === 'output' || budget.exceeded) {
        run.limit = {
          name: 'output_limit',
          detail: `the code wrote more than ${formatByteSize(budget.limit)} of console output and was stopped`,
        };
      } else if (outcome.error && /^InternalError: out of memory/.test(outcome.error)) {
        run.limit = this.memoryLimit();
      } else if (outcome.error && /^InternalError: stack overflow/.test(outcome.error)) {
        run.limit = this.stackLimit();
      }
      if (run.limit?.name === 'memory_limit' && this.settings.persist) {
        // The state that filled the memory would fill it again on the next call.
        this.reset();
        run.stateReset = true;
      } else if (!this.settings.persist) this.dispose(live);
      else this.live = live;
      return run;
    } catch (error) {
      // An exception out of WebAssembly (V8's stack, an abort) leaves the instance unusable.
      this.broken = true;
      this.live = undefined;
      const message = error instanceof Error ? error.message : String(error);
      const atMax = instance.memory.buffer.byteLength >= instance.maxBytes - 1024 * 1024;
      return {
        stdout: budget.text('stdout'),
        stderr: budget.text('stderr'),
        limit: atMax || !/call stack/i.test(message) ? this.memoryLimit() : this.stackLimit(),
        stateReset: this.settings.persist,
        error: `the interpreter stopped: ${message}`,
      };
    }
  }

  private memoryLimit(): NonNullable<CodeRun['limit']> {
    return {
      name: 'memory_limit',
      detail: `the code needed more than ${formatByteSize(this.settings.memoryBytes)} of memory`,
    };
  }

  private stackLimit(): NonNullable<CodeRun['limit']> {
    return {
      name: 'stack_limit',
      detail: `recursion went deeper than the interpreter's ${formatByteSize(JS_STACK_BYTES)} stack allows`,
    };
  }

  private create(instance: QuickJsInstance): Live {
    const runtime = instance.module.newRuntime();
    runtime.setMemoryLimit(this.settings.memoryBytes);
    runtime.setMaxStackSize(JS_STACK_BYTES);
    const context = runtime.newContext();
    const sink = { budget: new OutputBudget(this.settings.outputBytes) };
    const emit = context.newFunction('emit', (stream, text) => {
      sink.budget.push(context.getNumber(stream) === 2 ? 'stderr' : 'stdout', context.getString(text));
    });
    const prelude = context.unwrapResult(context.evalCode(PRELUDE, 'prelude.js'));
    const show = context.unwrapResult(context.callFunction(prelude, context.undefined, emit));
    prelude.dispose();
    emit.dispose();
    return { runtime, context, show, sink };
  }

  /** Evaluates, settles a returned promise, and reads the value back through `show`. */
  private evaluate(live: Live, code: string): Pick<CodeRun, 'result' | 'error'> {
    const { context, runtime } = live;
    const evaluated = context.evalCode(code, 'code.js');
    if (evaluated.error) return { error: this.describeError(context, evaluated.error) };
    let value = evaluated.value;
    const jobs = runtime.executePendingJobs();
    if (jobs.error) jobs.error.dispose();
    if (context.typeof(value) === 'object') {
      const state = context.getPromiseState(value);
      if (state.type !== 'fulfilled' || !state.notAPromise) {
        value.dispose();
        if (state.type === 'pending') return { error: 'the promise the code returned never settled' };
        if (state.type === 'rejected') return { error: this.describeError(context, state.error) };
        value = state.value;
      }
    }
    if (context.typeof(value) === 'undefined') {
      value.dispose();
      return {};
    }
    const shown = context.callFunction(live.show, context.undefined, value);
    value.dispose();
    if (shown.error) return { error: this.describeError(context, shown.error) };
    const text = context.getString(shown.value);
    shown.value.dispose();
    const parsed = JSON.parse(text) as { value?: JSONValue; text?: string };
    if (text.length > RESULT_CHARS)
      return { result: `${text.slice(0, RESULT_CHARS)}… (${text.length} characters; truncated)` };
    return { result: 'value' in parsed ? (parsed.value as JSONValue) : (parsed.text ?? '') };
  }

  private describeError(context: QuickJSContext, handle: QuickJSHandle): string {
    const dumped = context.dump(handle) as unknown;
    handle.dispose();
    if (dumped && typeof dumped === 'object') {
      const { name, message, stack } = dumped as { name?: unknown; message?: unknown; stack?: unknown };
      const head = `${String(name ?? 'Error')}: ${String(message ?? '')}`;
      return typeof stack === 'string' && stack.trim() ? `${head}\n${stack.trimEnd()}` : head;
    }
    // QuickJS throws a bare value when it could not even allocate the error object.
    return dumped === undefined || dumped === '' ? 'InternalError: out of memory' : `Uncaught ${String(dumped)}`;
  }

  private dispose(live: Live): void {
    try {
      live.show.dispose();
      live.context.dispose();
      live.runtime.dispose();
    } catch {
      // A leaked handle makes QuickJS assert on free: drop the whole instance instead.
      this.broken = true;
    }
  }

  /** Drops the persisted state and the instance (its memory goes back to the host). */
  reset(): void {
    if (this.live && !this.broken) this.dispose(this.live);
    this.live = undefined;
    this.instance = undefined;
    this.broken = false;
  }
}
