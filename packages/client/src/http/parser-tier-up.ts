import { setFlagsFromString } from 'node:v8';

/**
 * Why: undici parses HTTP with llhttp compiled to WebAssembly, on its first connection. After a
 * few answers V8 re-compiles the parser with its optimising compiler on a background thread
 * (about 100 ms of work here), and a Node process cannot exit before that job ends, so a short
 * script — one `raf run`, a CI step, a serverless call — spends that long waiting at its end
 * (`pnpm bench --only cold-run`). V8 gives each WebAssembly module its tiering budget when the
 * module is compiled, so raising the budget for the first connection only, then putting it back,
 * keeps llhttp on the baseline compiler for its first ~hundreds of KB parsed and changes nothing
 * for any other module. A long-lived process still reaches the optimised parser.
 */
const LATE_BUDGET = '--wasm-tiering-budget=2000000000';
/** V8's default in the Node versions we support (`node --v8-options`). */
const DEFAULT_BUDGET = '--wasm-tiering-budget=1800000';

let state: 'unset' | 'held' | 'done' = 'unset';

/** A user who chose V8's wasm tiering (flags or NODE_OPTIONS) keeps their choice. */
function userChoseTiering(): boolean {
  const chosen = (flag: string) => /wasm-tiering|liftoff|wasm-dynamic-tiering|wasm-tier-up/.test(flag);
  return process.execArgv.some(chosen) || chosen(process.env.NODE_OPTIONS ?? '');
}

/** Called before a request is dispatched: the first one raises the budget for its connection. */
export function holdParserTierUp(): void {
  if (state !== 'unset') return;
  if (userChoseTiering()) {
    state = 'done';
    return;
  }
  state = 'held';
  setFlagsFromString(LATE_BUDGET);
}

/** Called when a request has its connection (or failed): the parser exists, the default returns. */
export function releaseParserTierUp(): void {
  if (state !== 'held') return;
  state = 'done';
  setFlagsFromString(DEFAULT_BUDGET);
}
