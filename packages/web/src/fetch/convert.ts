import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { lazyCjs } from '../cjs.js';
import { type Extracted, type FetchMode, stripNoise } from './extract.js';
import { linearText, nestingDepth } from './html-scan.js';

/**
 * Bounds on turning a page into the asked form. linkedom, Readability and Turndown are
 * synchronous and superlinear on hostile pages (measured on the reproducer: 2,000 nested `<div>`,
 * 22 KB, 93 s in markdown mode; 10,000 levels overflow the stack), so:
 * - a page nested deeper than `maxDepth` or larger than `maxChars` (after scripts, styles and
 *   comments are dropped) is never given to them: its text is taken in one linear pass instead.
 *   Real pages nest 15–60 levels; 128 levels of `<div>` convert in well under a second;
 * - every other page converts in a worker thread, terminated at `timeoutMs` (the text is then
 *   taken the linear way) or when the call is aborted: the agent's event loop never waits on it.
 */
export const CONVERT_LIMITS = { maxDepth: 128, maxChars: 2_000_000, timeoutMs: 10_000 } as const;

export interface ConvertOptions {
  mode: FetchMode;
  html: boolean;
  url: string;
  signal: AbortSignal;
  /** Overrides `CONVERT_LIMITS.timeoutMs`. */
  timeoutMs?: number;
}

/** What the converter worker is sent and answers (`convert-worker.ts`). */
export interface ConvertJob {
  /** The page without scripts, styles and comments (`stripNoise`). */
  text: string;
  mode: FetchMode;
  url: string;
}
export type ConvertReply = { ok: true; extracted: Extracted } | { ok: false; error: string };

/** `Extracted`, plus `warning` when the page was read the linear way (the model sees why). */
export type Converted = Extracted & { warning?: string };

/** Turns fetched text into what the mode asks for, within `CONVERT_LIMITS`. */
export async function convertContent(text: string, options: ConvertOptions): Promise<Converted> {
  const { mode, html, url, signal } = options;
  if (mode === 'raw' || !html) return { content: text };
  signal.throwIfAborted();
  const page = stripNoise(text);
  if (page.length > CONVERT_LIMITS.maxChars) {
    return textOnly(page, `the page is ${page.length} characters of HTML (over ${CONVERT_LIMITS.maxChars})`);
  }
  const depth = nestingDepth(page, CONVERT_LIMITS.maxDepth);
  if (depth > CONVERT_LIMITS.maxDepth) {
    return textOnly(page, `its elements nest more than ${CONVERT_LIMITS.maxDepth} levels deep`);
  }
  const timeoutMs = options.timeoutMs ?? CONVERT_LIMITS.timeoutMs;
  const reply = await inWorker({ text: page, mode, url }, signal, timeoutMs);
  if (reply === 'timeout') return textOnly(page, `converting it took longer than ${timeoutMs} ms`);
  if (!reply.ok) return textOnly(page, `converting it failed (${reply.error})`);
  return reply.extracted;
}

function textOnly(page: string, why: string): Converted {
  const { text, title } = linearText(page);
  return {
    content: text,
    source: 'page',
    ...(title && { title }),
    warning: `${why}: this is the page's text only, without the article extraction or formatting the mode asks for`,
  };
}

const workerThreads = lazyCjs<typeof import('node:worker_threads')>('node:worker_threads');

/** One idle worker kept (unreferenced) for the next page: starting one loads the libraries again. */
let idle: Worker | undefined;
/** Longest a new worker may take to load the libraries before the page is read as text. */
const STARTUP_MS = 30_000;

/** An idle worker that fails or stops is only forgotten: no job of it is running. */
function keepIdle(worker: Worker): void {
  const forget = () => {
    if (idle === worker) idle = undefined;
    void worker.terminate();
  };
  idle = worker;
  worker.once('error', forget).once('exit', forget).unref();
}

/** Workers that have loaded the libraries (their first message says so). */
const readyWorkers = new WeakSet<Worker>();

/**
 * Runs one job. The deadline starts once the worker has loaded linkedom, Readability and Turndown
 * (not the page's doing, and slow on a loaded machine or under tsx); loading has its own bound.
 */
function runJob(worker: Worker, job: ConvertJob, signal: AbortSignal, timeoutMs: number) {
  return new Promise<ConvertReply | 'timeout'>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout>;
    const finish = (settle: () => void, keep: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (keep && idle === undefined) keepIdle(worker);
      else void worker.terminate();
      settle();
    };
    const send = () => {
      timer = setTimeout(() => finish(() => resolve('timeout'), false), timeoutMs);
      worker.postMessage(job);
    };
    const onMessage = (message: ConvertReply | { ready: true }) => {
      if (!('ready' in message)) return finish(() => resolve(message), true);
      readyWorkers.add(worker);
      clearTimeout(timer);
      send();
    };
    const onError = (error: Error) => finish(() => resolve({ ok: false, error: error.message }), false);
    const onExit = (code: number) =>
      finish(() => resolve({ ok: false, error: `the converter stopped (exit code ${code})` }), false);
    const onAbort = () => finish(() => reject(signal.reason), false);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    signal.addEventListener('abort', onAbort, { once: true });
    worker.ref();
    if (readyWorkers.has(worker)) send();
    else {
      timer = setTimeout(
        () =>
          finish(
            () => resolve({ ok: false, error: `the converter did not start within ${STARTUP_MS} ms` }),
            false,
          ),
        STARTUP_MS,
      );
    }
  });
}

function inWorker(job: ConvertJob, signal: AbortSignal, timeoutMs: number) {
  const worker = idle ?? startWorker();
  idle = undefined;
  worker.removeAllListeners('error').removeAllListeners('exit');
  return runJob(worker, job, signal, timeoutMs);
}

/** A page that makes the DOM outgrow this ends its worker (and is read as text), not the agent. */
const resourceLimits = { maxOldGenerationSizeMb: 1024 };

/**
 * Starts `convert-worker`: the built `.js` beside this module (the package's `dist`), or the
 * `.ts` source under tests, loaded through tsx (Node 20 cannot load TypeScript, and loader hooks
 * do not reach a worker's entry) — as the framework's search walker does.
 */
function startWorker(): Worker {
  const { Worker: WorkerThread } = workerThreads();
  const here = import.meta.url;
  if (!here.endsWith('.ts'))
    return new WorkerThread(new URL('./convert-worker.js', here), { resourceLimits });
  const tsx = createRequire(here).resolve('tsx/cjs/api');
  // Only ever read from source, so not spelled as a literal a bundle would carry as an import.
  const entry = fileURLToPath(new URL(`./convert-worker${here.slice(-3)}`, here));
  return new WorkerThread(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(entry)});`, {
    eval: true,
    resourceLimits,
  });
}
