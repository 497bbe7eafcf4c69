import { runColdStartBench } from './cold-start.ts';
const r = await runColdStartBench(Number(process.argv[2] ?? 9));
console.log(r, Object.fromEntries(Object.entries(r!).map(([k, v]) => [k, Math.round(v - r!.node)])));
