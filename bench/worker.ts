// One contender in its own process: `worker.ts '<WorkerRequest JSON>'` prints one Measurement.
import { type ClientScenario, clientOperation } from './client-overhead.js';
import { timeOperations, type WorkerRequest } from './lib/measure.js';

const request = JSON.parse(process.argv[2] ?? '{}') as WorkerRequest;
if (request.bench !== 'client') throw new Error(`unknown benchmark ${request.bench}`);
const operation = clientOperation(request.baseURL, request.scenario as ClientScenario, request.contender);
const result = await timeOperations(operation, request.warmupOps, request.ops);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
