import { resolve } from 'node:path';
import { ConfigError, getErrorMessage } from '@raf/core';
import type { ChatClientAgent } from '@raf/framework';
import type { DurableEvents, DurableRunHost } from '@raf/server';
import type { CliArgs } from '../args.js';
import type { CliIO } from '../io.js';
import { durableStore, loadDbosPackage } from './load-dbos.js';
import { agentFlags, rebuildAgent } from './rebuild-agent.js';

/** The queue of the serve replicas: a `raf worker` (which writes no run events) does not take their runs. */
export const SERVE_QUEUE = 'raf-serve-runs';

export interface ServeDurable {
  host: DurableRunHost;
  close(): Promise<void>;
}

/**
 * `raf serve --durable`: this replica is a DBOS worker on the Postgres store. The runs it starts
 * are workflows executed here; when a replica dies, another takes its runs over (the DBOS
 * recovery of `@raf/dbos`) and `events` writes the rest of their events from there.
 */
export async function openServeDurable(
  args: CliArgs,
  io: CliIO,
  agents: { name: string; file: string; agent: ChatClientAgent | undefined }[],
  events: DurableEvents,
): Promise<ServeDurable> {
  const store = durableStore(args, io, 'raf serve --durable');
  const dbos = await loadDbosPackage('raf serve --durable', io);
  const runtime = await dbos.DurableRuntime.open({
    store,
    role: 'worker',
    queue: SERVE_QUEUE,
    resolve: (ref) => rebuildAgent(ref, io),
    observe: (spec) => events.observe(spec.runId),
  });
  let control: Awaited<ReturnType<typeof dbos.DurableControl.open>> | undefined;
  try {
    control = await dbos.DurableControl.open(store);
    const refs = new Map<
      string,
      { name: string; file: string; cwd: string; overrides: { flags: string[] } }
    >();
    const flags = agentFlags(args, io);
    for (const { name, file, agent } of agents) {
      if (!agent) continue;
      // Named by its file, as `raf run --durable` names it: any replica with the same files rebuilds it.
      const ref = { name, file: resolve(io.cwd, file), cwd: io.cwd, overrides: { flags } };
      try {
        runtime.register(agent, ref);
      } catch (error) {
        // An agent durable runs cannot take yet (sub-agents) is served as without --durable.
        if (!ConfigError.isInstance(error)) throw error;
        io.stderr.write(`raf serve: ${name} runs without --durable: ${getErrorMessage(error)}\n`);
        continue;
      }
      refs.set(name, ref);
    }
    const ctl = control;
    const host: DurableRunHost = {
      handles: (agent) => refs.has(agent),
      start: async ({ runId, sessionId, agent, input }) => {
        await runtime.start({ runId, sessionId, agent: refs.get(agent)!, input });
      },
      approve: async (runId, approvals) => {
        await ctl.approve(runId, { answer: { responses: approvals } });
      },
      cancel: async (runId) => {
        await ctl.cancel(runId);
      },
      cancelled: async (runId) => (await ctl.show(runId))?.status === 'cancelled',
    };
    return {
      host,
      close: async () => {
        await ctl.close();
        // The runs executing here are released at once: another replica takes them over.
        await runtime.close();
      },
    };
  } catch (error) {
    await control?.close().catch(() => undefined);
    await runtime.close().catch(() => undefined);
    throw error;
  }
}
