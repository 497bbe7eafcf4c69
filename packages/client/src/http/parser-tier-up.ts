import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';

/**
 * Why: undici parses HTTP with llhttp compiled to WebAssembly, on its first connection. After a
 * few answers V8 re-compiles the parser with its optimising compiler on a background thread
 * (about 100 ms of work here), and a Node process cannot exit before that job ends, so a short
 * script — one `raf run`, a CI step, a serverless call — spends that long waiting at its end
 * (`pnpm bench --only cold-run`). V8 gives each WebAssembly module its tiering budget when the
 * module is compiled, so raising the budget for the first connection only, then putting V8's
 * default back, keeps llhttp on the baseline compiler for its first ~1 MB parsed and leaves every
 * module compiled afterwards as V8 would have it. A long-lived process still reaches the optimised
 * parser.
 */
const LATE_BUDGET = 2_000_000_000;

/**
 * V8's default `--wasm-tiering-budget` (`node --v8-options`), by V8 `major.minor`. Only where it is
 * known: putting back a wrong "default" would change every module compiled later, and a changed
 * flag makes Node's cached compilation of its built-in modules unusable. Elsewhere, no trick.
 */
const DEFAULT_BUDGETS: Record<string, number> = {
  '11.3': 1_800_000, // Node 20
  '12.4': 13_000_000, // Node 22
  '13.6': 13_000_000, // Node 24
};

/** V8's default budget in this process, when this module knows it. */
export function defaultTieringBudget(v8Version = process.versions.v8): number | undefined {
  return DEFAULT_BUDGETS[v8Version.split('.').slice(0, 2).join('.')];
}

// `off` until the application asks (`delayParserTierUp()`): a library changes no process-wide
// V8 flag on its own.
let state: 'off' | 'armed' | 'held' | 'done' = 'off';
let restore = '';

/**
 * Opt-in, for the entry point of a short-lived process (a CLI, a CI step, a serverless call; the
 * `raf` binary calls it): the first request raises V8's `--wasm-tiering-budget` until it has its
 * connection, so undici's WebAssembly HTTP parser stays on V8's baseline compiler for its first
 * ~1 MB and the process does not wait ~100 ms at exit for the parser's optimisation. V8 flags are
 * process-wide: call it in an application, never in a library. No effect on a V8 whose default
 * budget this module does not know, in a worker thread, or when the user chose the flag
 * (`--wasm-tiering-budget`, `RAF_KEEP_WASM_TIERING=1`). Returns whether the trick is armed.
 */
export function delayParserTierUp(): boolean {
  if (state === 'off') state = 'armed';
  return state === 'armed';
}

/**
 * A user who chose V8's wasm tiering on the command line (V8 takes `_` for `-`) or who opted out
 * keeps their choice. (`NODE_OPTIONS` cannot carry V8's wasm flags: node refuses to start.)
 */
function userChoseTiering(): boolean {
  if (process.env.RAF_KEEP_WASM_TIERING === '1') return true;
  return process.execArgv.some((arg) =>
    /wasm-tiering|liftoff|wasm-dynamic-tiering|wasm-tier-up/.test(arg.replaceAll('_', '-')),
  );
}

/**
 * Called before a request is dispatched: once armed, the first one raises the budget until it has its
 * connection. What that connection loads is loaded first (TLS for https), so that no built-in
 * module is compiled while the flag is changed; only the main thread plays (flags are
 * process-wide, a worker's first request would overlap the main thread's).
 */
export function holdParserTierUp(origin: string): void {
  if (state !== 'armed') return;
  state = 'done';
  const budget = defaultTieringBudget();
  if (budget === undefined || userChoseTiering()) return;
  const require = createRequire(import.meta.url);
  if (!(require('node:worker_threads') as typeof import('node:worker_threads')).isMainThread) return;
  if (origin.startsWith('https:')) require('node:tls');
  restore = `--wasm-tiering-budget=${budget}`;
  state = 'held';
  setFlagsFromString(`--wasm-tiering-budget=${LATE_BUDGET}`);
}

/** Called when a request has its connection (or failed): the parser exists, the default returns. */
export function releaseParserTierUp(): void {
  if (state !== 'held') return;
  state = 'done';
  setFlagsFromString(restore);
}
