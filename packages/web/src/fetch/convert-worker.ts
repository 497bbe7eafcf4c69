// The page converter's worker thread (a separate build entry: `dist/convert-worker.js`). It runs
// `extractContent` (linkedom, Readability, Turndown: synchronous, and superlinear on hostile
// pages) off the agent's event loop, so `convert.ts` can terminate it at the deadline or abort.
import { isMainThread, parentPort } from 'node:worker_threads';
import type { ConvertJob, ConvertReply } from './convert.js';
import { extractContent } from './extract.js';
import { htmlLibraries } from './html-libraries.js';

const port = isMainThread ? null : parentPort;
if (port) {
  port.on('message', (job: ConvertJob) => {
    extractContent(job.text, { mode: job.mode, html: true, url: job.url, noiseStripped: true }).then(
      (extracted) => port.postMessage({ ok: true, extracted } satisfies ConvertReply),
      (error: unknown) =>
        port.postMessage({
          ok: false,
          error: error instanceof Error ? error.message : String(error),
        } satisfies ConvertReply),
    );
  });
  // Loaded before the first page, and said so: the page's deadline starts after this.
  htmlLibraries().then(
    () => port.postMessage({ ready: true }),
    (error: unknown) => {
      throw error; // the parent sees it as the worker's 'error'
    },
  );
}
