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
        .padStart(10)} | ${ratio(r.raf.cpuMsPerOp, r.floor.cpuMsPerOp).padStart(9)} | ${ratio(r.openai.cpuMsPerOp, r.floor.cpuMsPerOp).padStart(12)}`,
    );
  }
  console.log('target: raf ≤ 1.20× floor');
}

const server = await startServerProcess();
try {
  const client = await runClientBench(server.baseURL, quick ? { rounds: 2, opsPerRound: 5 } : { rounds: 6, opsPerRound: 20 });
  if (json) {
    const view = Object.fromEntries(
      Object.entries(client).map(([name, r]) => [
        name,
        { raf: r.raf.cpuMsPerOp, floor: r.floor.cpuMsPerOp, openai: r.openai.cpuMsPerOp, rafOverFloor: r.raf.cpuMsPerOp / r.floor.cpuMsPerOp },
      ]),
    );
    console.log(JSON.stringify({ client: view }));
  } else printClient(client);
} finally {
  await server.stop();
}
