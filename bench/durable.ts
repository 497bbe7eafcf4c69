// Durable runs (SPEC §14.2, issue 30) on a throwaway Postgres: `stepOverheadMs`, the wall time a
// DBOS step adds to each model and tool call (a 4-round run of 3 parallel tools, durable against
// plain, same in-process scripted model); `recoveryMs`, from `kill -9` of the process running a
// run to the run going on in a worker (this process); `dispatchMs`, from putting a run on the run
// queue to its first model call in the worker. Wall time, p50.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ScriptedChatClient } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { DurableRuntime } from '@raf/dbos';
import { AgentBuilder, AgentSession } from '@raf/framework';
import { z } from 'zod';

export interface DurableBenchResult {
  /** Wall ms a step adds to one model or tool call (target ≤ 5 ms on local Postgres). */
  stepOverheadMs: number;
  /** Kill → the run's next model call in a worker (target ≤ 2000 ms, default settings). */
  recoveryMs: number;
  /** Enqueue → the run's first model call in a worker (target ≤ 60 ms). */
  dispatchMs: number;
  /** The same per step in CPU ms of this process (DBOS's own work; wall time adds the database and the machine's load). */
  stepOverheadCpuMs: number;
  runMs: { plain: number; durable: number };
  stepsPerRun: number;
}

const ROUNDS = 4;
const PARALLEL = 3;
const p50 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;

function roundTrip(onCall?: () => void) {
  return new ScriptedChatClient(
    Array.from({ length: 1000 }, () => (messages: readonly { role: string }[]) => {
      onCall?.();
      const rounds = messages.filter((m) => m.role === 'assistant').length;
      if (rounds >= ROUNDS) return { text: 'done' };
      return {
        toolCalls: Array.from({ length: PARALLEL }, (_, i) => ({
          id: `c${rounds}-${i}`,
          name: 'lookup',
          arguments: { id: i },
        })),
      };
    }),
  );
}

function loopAgent(name: string, onCall?: () => void, onTool?: () => void) {
  return new AgentBuilder(name)
    .chatClient(roundTrip(onCall))
    .withTool(
      defineTool({
        name: 'lookup',
        description: 'Look an item up',
        parameters: z.object({ id: z.number() }),
        execute: ({ id }) => {
          onTool?.();
          return toolSuccess({ id, value: `item ${id}` });
        },
      }),
    )
    .build();
}

export async function runDurableBench(options: {
  runs: number;
  kills: number;
}): Promise<DurableBenchResult | null> {
  const { postgresSkipReason, startPgCluster } = await import(
    '../packages/postgres/src/testing/pg-cluster.js'
  );
  if (postgresSkipReason) return null;
  const cluster = await startPgCluster();
  const url = cluster.createDatabase('durable_bench');
  let firstCall: (() => void) | undefined;
  const recoveryAgent = loopAgent('durable-bench-recovery', () => firstCall?.());
  const dispatchAgent = loopAgent('durable-bench-dispatch', () => firstCall?.());
  const runtime = await DurableRuntime.open({
    store: url,
    role: 'worker',
    resolve: async (ref) => (ref.name === 'durable-bench-recovery' ? recoveryAgent : dispatchAgent),
  });
  try {
    // Step overhead: the same run, plain and durable, alternated.
    const plainAgent = loopAgent('durable-bench-plain');
    // Its model and tool calls are counted: one DBOS step each.
    let calls = 0;
    const count = () => {
      calls++;
    };
    const durableAgent = loopAgent('durable-bench-durable', count, count);
    const ref = runtime.register(durableAgent);
    const plain: number[] = [];
    const durable: number[] = [];
    const plainCpu: number[] = [];
    const durableCpu: number[] = [];
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    for (let i = 0; i < options.runs + 1; i++) {
      let started = performance.now();
      let cpu = process.cpuUsage();
      for await (const _ of plainAgent.run('go', { session: new AgentSession() })) {
      }
      if (i > 0) plain.push(performance.now() - started);
      if (i > 0) plainCpu.push(cpuMs(cpu));
      started = performance.now();
      cpu = process.cpuUsage();
      const runId = `overhead-${i}`;
      await runtime.start({ runId, sessionId: runId, agent: ref, input: 'go' });
      await runtime.result(runId);
      if (i > 0) durable.push(performance.now() - started);
      if (i > 0) durableCpu.push(cpuMs(cpu));
    }
    const stepsPerRun = calls / (options.runs + 1);

    // Dispatch: enqueue → first model call here.
    runtime.register(dispatchAgent);
    const dispatch: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const runId = `dispatch-${i}`;
      const called = new Promise<number>((resolve) => {
        firstCall = () => {
          firstCall = undefined;
          resolve(performance.now());
        };
      });
      const started = performance.now();
      await runtime.enqueue({
        runId,
        sessionId: runId,
        agent: { name: 'durable-bench-dispatch' },
        input: 'go',
      });
      dispatch.push((await called) - started);
      await runtime.result(runId);
    }

    // Recovery: kill -9 the process holding a run → its next model call here.
    const child = fileURLToPath(new URL('./durable-child.ts', import.meta.url));
    const recovery: number[] = [];
    for (let i = 0; i < options.kills; i++) {
      const runId = `recovery-${i}`;
      const proc = spawn(process.execPath, ['--import', 'tsx', child, url, runId], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => {
        let out = '';
        proc.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('in-tool')) resolve();
        });
      });
      const called = new Promise<number>((resolve) => {
        firstCall = () => {
          firstCall = undefined;
          resolve(performance.now());
        };
      });
      const killed = performance.now();
      proc.kill('SIGKILL');
      recovery.push((await called) - killed);
      await runtime.result(runId);
    }
    return {
      stepOverheadMs: (p50(durable) - p50(plain)) / stepsPerRun,
      stepOverheadCpuMs: (p50(durableCpu) - p50(plainCpu)) / stepsPerRun,
      recoveryMs: p50(recovery),
      dispatchMs: p50(dispatch),
      runMs: { plain: p50(plain), durable: p50(durable) },
      stepsPerRun,
    };
  } finally {
    await runtime.close();
    cluster.stop();
  }
}

// `npx tsx bench/durable.ts`: this section alone.
if (process.argv[1] === fileURLToPath(import.meta.url))
  console.log(JSON.stringify(await runDurableBench({ runs: 20, kills: 5 })));
