// `pnpm bench` runs every benchmark against a mock model server in a separate process and prints
// ratios measured in this one run; `pnpm bench --json` prints the figures as JSON.
import { type ClientBenchResult, runClientBench } from './client-overhead.js';
import { startServerProcess } from './lib/server.js';

const json = process.argv.includes('--json');
const quick = process.argv.includes('--quick');

function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

function printClient(result: ClientBenchResult): void {
  console.log('Client overhead: CPU ms per streamed answer (this process only; the server runs apart)');
  console.log('scenario  | floor (undici+SSE) | raf      | openai SDK | raf/floor | openai/floor');
  for (const [name, r] of Object.entries(result)) {
    console.log(
      `${name.padEnd(9)} | ${r.floor.cpuMsPerOp.toFixed(3).padStart(18)} | ${r.raf.cpuMsPerOp.toFixed(3).padStart(8)} | ${r.openai.cpuMsPerOp
        .toFixed(3)
        .padStart(
          10,
        )} | ${ratio(r.raf.cpuMsPerOp, r.floor.cpuMsPerOp).padStart(9)} | ${ratio(r.openai.cpuMsPerOp, r.floor.cpuMsPerOp).padStart(12)}`,
    );
  }
  const rss = Object.values(result)[0]!;
  console.log(
    `peak RSS (MiB): floor ${rss.floor.peakRssMiB.toFixed(0)}, raf ${rss.raf.peakRssMiB.toFixed(0)}, openai ${rss.openai.peakRssMiB.toFixed(0)}`,
  );
  console.log(
    'target: raf ≤ 1.20× floor. Each contender runs in its own process per round; medians of 5 rounds.',
  );
}

const server = await startServerProcess();
try {
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
    const view = Object.fromEntries(
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
    console.log(JSON.stringify({ client: view }));
  } else printClient(client);
} finally {
  await server.stop();
}
