// The walker's worker thread (a separate build entry: `dist/walker-worker.js`). It runs units
// sent by `walker-pool.ts`; in a worker, synchronous file calls are the fastest way to scan many
// small files and never block the agent's event loop.
import { createRequire } from 'node:module';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import picomatch from 'picomatch';
import type { WalkJob, WalkReply } from './walker-protocol.js';
import { jsMatcher, linearMatcher, type Re2Module, type TextMatcher } from './walker-scan.js';
import { runUnit, type UnitContext } from './walker-unit.js';

const port = isMainThread ? null : parentPort;
if (port) {
  const shared = new Int32Array(workerData.shared as SharedArrayBuffer);
  let re2: Re2Module | undefined;
  const matchers = new Map<string, TextMatcher>();
  const globs = new Map<string, (relative: string, name: string) => boolean>();

  const matcherFor = async (job: WalkJob): Promise<TextMatcher | undefined> => {
    if (job.source === undefined) return undefined;
    const key = `${job.linear ? 'linear' : 'js'}/${job.flags}/${job.source}`;
    let matcher = matchers.get(key);
    if (!matcher) {
      // Resolved as `isInstalled('re2js')` resolved it when the pool chose the linear engine (an
      // optional peer: the pool asks for it only when it is there).
      if (job.linear) re2 ??= createRequire(import.meta.url)('re2js') as Re2Module;
      matcher =
        job.linear && re2
          ? linearMatcher(re2, job.source, job.flags ?? '')
          : jsMatcher(job.source, job.flags ?? '');
      if (matchers.size > 16) matchers.clear();
      matchers.set(key, matcher);
    }
    return matcher;
  };

  const acceptsFor = (job: WalkJob) => {
    const glob = job.kind === 'find' ? job.glob : job.include;
    if (!glob) return undefined;
    const key = `${job.kind}/${glob}`;
    let accepts = globs.get(key);
    if (!accepts) {
      // find: the glob against the relative path, hidden entries only when named (`dot: false`);
      // include: on the name at any depth, or on the relative path when it has a `/`.
      const match = picomatch(glob, { dot: job.kind === 'search' });
      accepts =
        job.kind === 'find' || glob.includes('/')
          ? (relative) => match(relative)
          : (_relative, name) => match(name);
      if (globs.size > 16) globs.clear();
      globs.set(key, accepts);
    }
    return accepts;
  };

  port.on('message', async (job: WalkJob) => {
    let reply: WalkReply;
    try {
      const context: UnitContext = { shared };
      const matcher = await matcherFor(job);
      const accepts = acceptsFor(job);
      if (matcher) context.matcher = matcher;
      if (accepts) context.accepts = accepts;
      reply = runUnit(job, context);
    } catch (error) {
      reply = { id: job.id, items: [], error: (error as Error).message };
    }
    port.postMessage(reply);
  });
}
