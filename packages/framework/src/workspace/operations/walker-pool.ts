import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { SEARCH_LIMITS } from './search-limits.js';
import type { SearchMatch } from './tool-operations.js';

// Runs in worker threads (plain JS, no imports): synchronous reads are the fastest way to scan
// many small files, and in a worker they never block the agent's event loop.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { openSync, readSync, closeSync, constants } = require('node:fs');
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
let buffer = Buffer.allocUnsafe(1 << 16);
function clip(line, max) {
  if (line.endsWith('\\r')) line = line.slice(0, -1);
  return line.length > max ? line.slice(0, max) + '\\u2026' : line;
}
function readAll(file, maxBytes) {
  let fd;
  try { fd = openSync(file, FLAGS); } catch { return -1; }
  try {
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) return -1;
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) return length > maxBytes ? -1 : length;
      length += read;
    }
  } catch { return -1; } finally { closeSync(fd); }
}
parentPort.on('message', (job) => {
  const regex = new RegExp(job.source, job.flags);
  const matches = [];
  for (const file of job.files) {
    const length = readAll(file, job.maxFileBytes);
    if (length < 0 || buffer.subarray(0, Math.min(length, job.probeBytes)).includes(0)) continue;
    const text = buffer.toString('utf8', 0, length);
    if (!regex.test(text)) continue;
    const lines = text.split('\\n');
    for (let i = 0; i < lines.length; i++) {
      if (regex.test(lines[i])) matches.push({ file, line: i + 1, content: clip(lines[i], job.lineChars) });
    }
    if (matches.length > job.maxMatches) break;
  }
  parentPort.postMessage({ id: job.id, matches });
});
`;

interface Job {
  id: number;
  files: string[];
  source: string;
  flags: string;
  maxMatches: number;
}

let workers: Worker[] | undefined;
// Jobs in flight per worker: a busy worker keeps the process alive, an idle one must not.
const busy = new Map<Worker, number>();

function track(worker: Worker, delta: 1 | -1): void {
  const count = (busy.get(worker) ?? 0) + delta;
  busy.set(worker, count);
  if (delta === 1 && count === 1) worker.ref();
  if (count === 0) worker.unref();
}
let nextWorker = 0;
let nextId = 0;
const waiting = new Map<number, { resolve(matches: SearchMatch[]): void; reject(error: Error): void }>();

function pool(): Worker[] {
  if (workers) return workers;
  const size = Math.max(1, Math.min(4, availableParallelism()));
  workers = Array.from({ length: size }, () => {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (message: { id: number; matches: SearchMatch[] }) => {
      track(worker, -1);
      waiting.get(message.id)?.resolve(message.matches);
      waiting.delete(message.id);
    });
    worker.on('error', (error) => {
      // A crashed worker fails every search in flight; the next search starts a fresh pool.
      for (const [id, job] of waiting) {
        job.reject(error);
        waiting.delete(id);
      }
      for (const other of workers ?? []) void other.terminate();
      busy.clear();
      workers = undefined;
    });
    worker.unref(); // after adding listeners, which ref it again
    return worker;
  });
  return workers;
}

/** Searches a batch of files on the shared worker pool. */
export function searchBatch(files: string[], regex: RegExp, maxMatches: number): Promise<SearchMatch[]> {
  const all = pool();
  const worker = all[nextWorker++ % all.length] as Worker;
  const id = nextId++;
  const job: Job & Record<string, unknown> = {
    id,
    files,
    source: regex.source,
    flags: regex.flags,
    maxMatches,
    maxFileBytes: SEARCH_LIMITS.maxFileBytes,
    probeBytes: SEARCH_LIMITS.binaryProbeBytes,
    lineChars: SEARCH_LIMITS.lineChars,
  };
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    track(worker, 1);
    worker.postMessage(job);
  });
}
