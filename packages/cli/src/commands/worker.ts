import { redactStoreUrl } from '@raf/core';
import type { CliArgs } from '../args.js';
import { durableStore, loadDbosPackage } from '../durable/load-dbos.js';
import { rebuildAgent } from '../durable/rebuild-agent.js';
import { type CliIO, EXIT } from '../io.js';

/**
 * `raf worker`: a long-running process that takes over the durable runs of processes that died
 * (and of `raf run --durable` processes that exited at a pause) and consumes the run queue and
 * the delegation queue (sub-agents of durable runs). Each
 * run's agent is rebuilt from the file and flags it recorded. Stops on Ctrl-C or SIGTERM.
 */
export async function workerCommand(args: CliArgs, io: CliIO): Promise<number> {
  const store = durableStore(args, io, 'raf worker');
  const dbos = await loadDbosPackage('raf worker', io);
  let fenced = false;
  let stop: ((code: number) => void) | undefined;
  const stopped = new Promise<number>((done) => {
    stop = done;
  });
  const runtime = await dbos.DurableRuntime.open({
    store,
    role: 'worker',
    ...(args.queue !== undefined && { queue: args.queue }),
    ...(args.concurrency !== undefined && { concurrency: args.concurrency }),
    resolve: (ref) => rebuildAgent(ref, io),
    onFenced: () => {
      fenced = true;
      stop?.(EXIT.conflict);
    },
  });
  io.stderr.write(
    `raf worker ${runtime.executorId}: durable runs of ${redactStoreUrl(store)} (queue ${args.queue ?? dbos.DEFAULT_RUN_QUEUE}, delegations ${dbos.DEFAULT_DELEGATION_QUEUE}); Ctrl-C stops\n`,
  );
  const offInterrupt = io.onInterrupt(() => stop?.(EXIT.ok));
  const offTerminate = io.onTerminate?.(() => stop?.(EXIT.ok));
  try {
    const code = await stopped;
    if (fenced)
      io.stderr.write('raf worker: another worker took this one over (it was thought dead); stopping\n');
    return code;
  } finally {
    offInterrupt();
    offTerminate?.();
    // The runs held here go to the other workers at once.
    await runtime.close();
  }
}
