import { runColdRunBench } from '/work/wt/perf/bench/cold-run.ts';
import { startServerProcess } from '/work/wt/perf/bench/lib/server.ts';
const server = await startServerProcess();
try { console.log(await runColdRunBench(server.baseURL, Number(process.argv[2] ?? 5))); } finally { await server.stop(); }
