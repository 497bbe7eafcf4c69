/**
 * Installs `console` (log/info/debug → stdout, warn/error → stderr) around a host `emit` that is
 * never reachable from the global scope, and returns `show(value)`: the value as JSON text
 * (`{"value":…}`) or, for what JSON cannot hold, its string form (`{"text":…}`).
 */
export const QUICKJS_PRELUDE = `(function (emit) {
  const text = (v) => {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return String(v);
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

/**
 * The worker thread that runs QuickJS, as plain CommonJS (a worker cannot load TypeScript, and
 * this one must run from source in tests as well as from the build). Off the main thread, a
 * script that spins never blocks the agent's event loop, and the caller can interrupt it at any
 * time through a shared flag.
 *
 * Each session key owns one WebAssembly instance whose linear memory is capped (twice the script
 * limit plus headroom: QuickJS counts what scripts allocate, fragmentation needs more); dropping
 * the key frees the instance. A persisted key keeps its runtime and context between calls; others
 * get a fresh runtime per call. An exception out of WebAssembly (V8's stack overflowing inside an
 * unguarded C recursion, an abort) marks the instance broken: it is never reused.
 */
export const QUICKJS_WORKER_SOURCE = String.raw`'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const core = require(workerData.corePath);
const variantExports = require(workerData.variantPath);
const variant = variantExports.default || variantExports;
const flags = new Int32Array(workerData.flags);
const PAGE = 65536;
const HEADROOM = 32 * 1024 * 1024;
const RESULT_CHARS = 100000;
const sessions = new Map();

class Budget {
  constructor(limit) { this.limit = limit; this.used = 0; this.exceeded = false; this.out = []; this.err = []; }
  push(stream, text) {
    if (this.exceeded) return;
    const bytes = Buffer.byteLength(text);
    const target = stream === 2 ? this.err : this.out;
    if (this.used + bytes > this.limit) {
      const room = this.limit - this.used;
      if (room > 0) target.push(Buffer.from(text).subarray(0, room).toString());
      this.used = this.limit;
      this.exceeded = true;
      return;
    }
    this.used += bytes;
    target.push(text);
  }
}

async function newInstance(memoryBytes) {
  const pages = Math.max(512, Math.ceil((2 * memoryBytes + HEADROOM) / PAGE));
  const memory = new WebAssembly.Memory({ initial: 256, maximum: pages });
  const module = await core.newQuickJSWASMModuleFromVariant(
    core.newVariant(variant, { wasmModule: workerData.wasmModule, wasmMemory: memory }),
  );
  return { module, memory, maxBytes: pages * PAGE, live: undefined, broken: false };
}

function createLive(instance, request) {
  const runtime = instance.module.newRuntime();
  runtime.setMemoryLimit(request.memoryBytes);
  runtime.setMaxStackSize(workerData.stackBytes);
  const context = runtime.newContext();
  const sink = { budget: new Budget(request.outputBytes) };
  const emit = context.newFunction('emit', (stream, text) => {
    sink.budget.push(context.getNumber(stream), context.getString(text));
  });
  const prelude = context.unwrapResult(context.evalCode(workerData.prelude, 'prelude.js'));
  const show = context.unwrapResult(context.callFunction(prelude, context.undefined, emit));
  prelude.dispose();
  emit.dispose();
  return { runtime, context, show, sink };
}

function disposeLive(instance, live) {
  try {
    live.show.dispose();
    live.context.dispose();
    live.runtime.dispose();
  } catch {
    instance.broken = true;
  }
}

function describeError(context, handle) {
  const dumped = context.dump(handle);
  handle.dispose();
  if (dumped && typeof dumped === 'object') {
    const head = String(dumped.name || 'Error') + ': ' + String(dumped.message || '');
    const stack = typeof dumped.stack === 'string' ? dumped.stack.trimEnd() : '';
    return stack ? head + '\n' + stack : head;
  }
  // QuickJS throws a bare value when it cannot even allocate the error object.
  return dumped === undefined || dumped === '' ? 'InternalError: out of memory' : 'Uncaught ' + String(dumped);
}

function evaluate(live, code) {
  const { context, runtime } = live;
  const evaluated = context.evalCode(code, 'code.js');
  if (evaluated.error) return { error: describeError(context, evaluated.error) };
  let value = evaluated.value;
  const jobs = runtime.executePendingJobs();
  if (jobs.error) jobs.error.dispose();
  if (context.typeof(value) === 'object') {
    const state = context.getPromiseState(value);
    if (state.type !== 'fulfilled' || !state.notAPromise) {
      value.dispose();
      if (state.type === 'pending') return { error: 'Error: the promise the code returned never settled' };
      if (state.type === 'rejected') return { error: describeError(context, state.error) };
      value = state.value;
    }
  }
  if (context.typeof(value) === 'undefined') {
    value.dispose();
    return {};
  }
  const shown = context.callFunction(live.show, context.undefined, value);
  value.dispose();
  if (shown.error) return { error: describeError(context, shown.error) };
  const text = context.getString(shown.value);
  shown.value.dispose();
  if (text.length > RESULT_CHARS)
    return { result: text.slice(0, RESULT_CHARS) + '… (' + text.length + ' characters; truncated)', truncated: true };
  const parsed = JSON.parse(text);
  return { result: 'value' in parsed ? parsed.value : parsed.text };
}

async function run(request) {
  let instance = sessions.get(request.key);
  if (!instance || instance.broken) {
    instance = await newInstance(request.memoryBytes);
    sessions.set(request.key, instance);
  }
  const budget = new Budget(request.outputBytes);
  const deadline = Date.now() + request.timeoutMs;
  let stop;
  try {
    const live = instance.live || createLive(instance, request);
    live.sink.budget = budget;
    live.runtime.setInterruptHandler(() => {
      if (Atomics.load(flags, 0) === request.id) stop = 'aborted';
      else if (budget.exceeded) stop = 'output';
      else if (Date.now() > deadline) stop = 'timeout';
      return stop !== undefined;
    });
    const outcome = evaluate(live, request.code);
    let limit;
    if (stop === 'timeout') limit = 'timeout_secs';
    else if (stop === 'output' || budget.exceeded) limit = 'output_limit';
    else if (outcome.error && /^InternalError: out of memory/.test(outcome.error)) limit = 'memory_limit';
    else if (outcome.error && /^InternalError: stack overflow/.test(outcome.error)) limit = 'stack_limit';
    let stateReset = false;
    if (request.persist && limit !== 'memory_limit') instance.live = live;
    else {
      disposeLive(instance, live);
      instance.live = undefined;
      // WebAssembly memory never shrinks: after a memory bomb the instance goes, and its memory
      // with it. A persisted state that filled the memory would fill it again anyway.
      if (limit === 'memory_limit') {
        sessions.delete(request.key);
        stateReset = request.persist;
      }
    }
    return { stdout: budget.out.join(''), stderr: budget.err.join(''), ...outcome, limit, stateReset, aborted: stop === 'aborted' };
  } catch (error) {
    instance.broken = true;
    instance.live = undefined;
    const message = error instanceof Error ? error.message : String(error);
    const atMax = instance.memory.buffer.byteLength >= instance.maxBytes - 1024 * 1024;
    return {
      stdout: budget.out.join(''),
      stderr: budget.err.join(''),
      error: 'the interpreter stopped: ' + message,
      limit: atMax || !/call stack/i.test(message) ? 'memory_limit' : 'stack_limit',
      stateReset: request.persist,
    };
  }
}

let queue = Promise.resolve();
parentPort.on('message', (request) => {
  if (request.type === 'drop') {
    queue = queue.then(() => {
      const instance = sessions.get(request.key);
      if (instance && instance.live && !instance.broken) disposeLive(instance, instance.live);
      sessions.delete(request.key);
    });
    return;
  }
  queue = queue
    .then(() => run(request))
    .catch((error) => ({ stdout: '', stderr: '', error: 'the interpreter failed: ' + String(error) }))
    .then((outcome) => parentPort.postMessage({ id: request.id, outcome }));
});
`;
