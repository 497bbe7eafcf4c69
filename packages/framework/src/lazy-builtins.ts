import { lazyRequire } from './lazy-require.js';

// Node's own modules that only some subsystems use, loaded on first use: `node:crypto`,
// `node:child_process` and `node:worker_threads` cost more to load than the framework's own code
// (about 40 M instructions together, of ~85 M for `import('@raf/framework')` beyond zod).

/** `node:crypto`: ids and hashes. */
export const nodeCrypto = lazyRequire<typeof import('node:crypto')>('node:crypto');
/** `node:child_process`: `run_command`, ripgrep, the sandbox probe. */
export const childProcess = lazyRequire<typeof import('node:child_process')>('node:child_process');
/** `node:worker_threads`: the search walker's pool. */
export const workerThreads = lazyRequire<typeof import('node:worker_threads')>('node:worker_threads');
