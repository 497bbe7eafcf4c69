// `pnpm bench` runs every benchmark against a mock model server in a separate process and prints
// ratios measured in this one run; `pnpm bench --json` prints the figures as JSON; `--quick` is a
// smoke test (one short round), `--only client|loop` runs one benchmark.
import { LOOP_ROUNDS, type LoopBenchResult, runLoopBench } from './agent-loop.js';
import { type ClientBenchResult, runClientBench } from './client-overhead.js';
import { startServerProcess } from './lib/server.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const quick = args.includes('--quick');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const ms = (v: number, width: number) => v.toFixed(3).padStart(width);

function printClient(result: ClientBenchResult): void {
  console.log('Client overhead: CPU ms per streamed answer (contender process only; the server runs apart)');
  console.log('scenario  | floor (undici+SSE) | raf      | openai SDK | raf/floor | openai/floor');
  for (const [name, r] of Object.entries(result)) {
    console.log(
      `${name.padEnd(9)} | ${ms(r.floor.cpuMsPerOp, 18)} | ${ms(r.raf.cpuMsPerOp, 8)} | ${ms(r.openai.cpuMsPerOp, 10)} | ${ratio(r.raf.cpuMsPerOp, r.floor.cpuMsPerOp).padStart(9)} | ${ratio(r.openai.cpuMsPerOp, r.floor.cpuMsPerOp).padStart(12)}`,
    );
  }
  console.log('target: raf ≤ 1.20× floor\n');
}

function loopView(result: LoopBenchResult) {
  return Object.fromEntries(Object.entries(result).map(([name, m]) => [name, m.cpuMsPerOp / LOOP_ROUNDS]));
}

function printLoop(result: LoopBenchResult): void {
  const perRound = loopView(result);
  const fasterPeer = Math.min(perRound.openaiAgents!, perRound.aiSdk!);
  console.log(
    `Agent loop: CPU ms per tool round (${LOOP_ROUNDS} rounds × 3 parallel trivial tools per run; agent process only)`,
  );
  console.log('contender     | ms/round | ×floor | peak RSS MiB');
  for (const [name, m] of Object.entries(result)) {
    console.log(
      `${name.padEnd(13)} | ${ms(perRound[name]!, 8)} | ${ratio(perRound[name]!, perRound.floor!).padStart(6)} | ${m.peakRssMiB.toFixed(0).padStart(12)}`,
    );
  }
  console.log(
    `raf / faster peer: ${ratio(perRound.raf!, fasterPeer)} (targets: raf ≤ 1.15× floor, ≤ 0.5× the faster peer)\n`,
  );
}

const server = await startServerProcess();
try {
  const output: Record<string, unknown> = {};
  if (!only || only === 'client') {
    const client = await runClientBench(
      server.baseURL,
      quick
        ? { text2000: { rounds: 1, warmupOps: 5, ops: 5 }, tools20: { rounds: 1, warmupOps: 20, ops: 20 } }
        : {
            text2000: { rounds: 5, warmupOps: 150, ops: 150 },
            tools20: { rounds: 5, warmupOps: 300, ops: 600 },
          },
    );
    if (json) {
      output.client = Object.fromEntries(
        Object.entries(client).map(([name, r]) => [
          name,
          {
            raf: r.raf.cpuMsPerOp,
            floor: r.floor.cpuMsPerOp,
            openai: r.openai.cpuMsPerOp,
            rafOverFloor: r.raf.cpuMsPerOp / r.floor.cpuMsPerOp,
            peakRssMiB: { raf: r.raf.peakRssMiB, floor: r.floor.peakRssMiB, openai: r.openai.peakRssMiB },
          },
        ]),
      );
    } else printClient(client);
  }
  if (!only || only === 'loop') {
    const loop = await runLoopBench(
      server.baseURL,
      quick ? { rounds: 1, warmupOps: 3, ops: 5 } : { rounds: 5, warmupOps: 100, ops: 200 },
    );
    if (json) {
      output.loop = loopView(loop);
      output.loopPeakRssMiB = Object.fromEntries(
        Object.entries(loop).map(([name, m]) => [name, m.peakRssMiB]),
      );
    } else printLoop(loop);
  }
  if (json) console.log(JSON.stringify(output));
} finally {
  await server.stop();
}
