// A parent that starts a spare sub-agent worker, prints its pid, and waits to be killed
// (worker.test.ts: a worker ends when its parent dies).
import { WorkerPool } from '../sub-agents/worker-process.js';

const pool = new WorkerPool(1);
const filled = pool.ready();
const spare = (pool as unknown as { spares: { child: { pid: number } }[] }).spares[0];
await filled;
process.stdout.write(`${spare?.child.pid}\n`);
setInterval(() => {}, 1000);
