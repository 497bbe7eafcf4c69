// One contender in its own process: `worker.ts '<WorkerRequest JSON>'` prints one Measurement.
import { loopOperation } from './agent-loop.js';
import { type ClientScenario, clientOperation } from './client-overhead.js';
import { timeOperations, type WorkerRequest } from './lib/measure.js';

const request = JSON.parse(process.argv[2] ?? '{}') as WorkerRequest;
const operation =
  request.bench === 'client'
    ? await clientOperation(request.baseURL, request.scenario as ClientScenario, request.contender)
    : request.bench === 'loop'
      ? await loopOperation(request.baseURL, request.contender)
      : undefined;
if (!operation) throw new Error(`unknown benchmark ${request.bench}`);
const result = await timeOperations(operation, request.warmupOps, request.ops);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
