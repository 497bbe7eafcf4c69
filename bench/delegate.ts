// Sub-agent delegation (SPEC §7.1): how long a delegation takes to reach its sub-agent's first
// model request in a worker process (with the warm pool of one spare, and without), the same
// inline, and the round trip of one proxied tool call as the worker sees it. Wall times, medians.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockTurn, startMockModelServer } from '@raf/client/testing';
import type { JSONValue } from '@raf/core';
import { createSubAgentRunner, type SubAgentSpec } from '@raf/framework';
import { buildDelegateAgent, type DelegateAgentOptions } from './lib/delegate-agent.js';

export interface DelegateBenchResult {
  /** A delegation to its sub-agent's first model request, a warm spare worker taking it (target ≤ 80). */
  workerStartMs: number;
  /** The same with no spare: a process boots for the delegation. */
  coldWorkerStartMs: number;
  /** The same delegation inline (`runtime: inline`), for comparison. */
  inlineMs: number;
  /** One proxied tool call's round trip, measured in the worker (target ≤ 2). */
  proxyCallMs: number;
  /** The same call of a worker-local tool. */
  localCallMs: number;
}

const factory = fileURLToPath(new URL('./lib/delegate-agent.ts', import.meta.url));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

export async function runDelegateBench(options: {
  runs: number;
  calls: number;
}): Promise<DelegateBenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'raf-bench-delegate-'));
  const timings = join(dir, 'timings.txt');
  // The sub-agent's requests: `pinger` calls ping, then local_ping, `calls` times each; others answer at once.
  let arrived = 0;
  let pings = 0;
  const server = await startMockModelServer({
    turns: (request): MockTurn => {
      arrived = performance.now();
      if (request.body?.model !== 'pinger') return { text: 'ok' };
      const n = pings++;
      if (n >= 2 * options.calls) return { text: 'done' };
      // Arguments differ each time: the loop guard stops identical calls.
      return {
        toolCalls: [{ id: `p${n}`, name: n < options.calls ? 'ping' : 'local_ping', arguments: { n } }],
      };
    },
  });
  const spec = (name: string, extra: Partial<SubAgentSpec> = {}): SubAgentSpec => {
    const agentOptions: DelegateAgentOptions = { name, baseURL: server.baseURL, timings };
    return {
      name,
      agent: buildDelegateAgent(agentOptions),
      worker: { module: factory, export: 'delegateAgent', options: agentOptions as unknown as JSONValue },
      ...extra,
    };
  };
  /** Milliseconds from the delegation to the sub-agent's first model request. */
  const start = async (runner: ReturnType<typeof createSubAgentRunner>, agent: string, i: number) => {
    const begun = performance.now();
    const outcome = await runner.run({ agent, task: 'hi', callId: `c${i}` });
    if (outcome.status !== 'done') throw new Error(`delegation failed: ${JSON.stringify(outcome)}`);
    return arrived - begun;
  };
  try {
    const warm = createSubAgentRunner(
      [spec('helper'), spec('inline', { runtime: 'inline' }), spec('pinger')],
      {
        warmWorkers: 1,
      },
    );
    const cold = createSubAgentRunner([spec('helper')], { warmWorkers: 0 });
    const samples = { warm: [] as number[], cold: [] as number[], inline: [] as number[] };
    await warm.warm();
    await start(warm, 'helper', -1); // loads everything once
    for (let i = 0; i < options.runs; i++) {
      // The spare started behind the last delegation is loaded, as between two real delegations.
      await warm.warm();
      samples.warm.push(await start(warm, 'helper', i));
      samples.cold.push(await start(cold, 'helper', i));
      samples.inline.push(await start(warm, 'inline', i));
    }
    await warm.warm();
    const outcome = await warm.run({ agent: 'pinger', task: 'ping', callId: 'p' });
    if (outcome.status !== 'done') throw new Error(`the ping delegation failed: ${JSON.stringify(outcome)}`);
    await Promise.all([warm.close(), cold.close()]);
    const lines = (await readFile(timings, 'utf8')).trim().split('\n');
    const calls = (name: string) =>
      lines
        .map((l) => l.split(' '))
        .filter(([n]) => n === name)
        .map(([, ms]) => Number(ms))
        // The first calls warm the code paths up.
        .slice(Math.min(5, Math.floor(options.calls / 2)));
    return {
      workerStartMs: median(samples.warm),
      coldWorkerStartMs: median(samples.cold),
      inlineMs: median(samples.inline),
      proxyCallMs: median(calls('ping')),
      localCallMs: median(calls('local_ping')),
    };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
