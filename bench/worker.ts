// One contender in its own process: `worker.ts '<WorkerRequest JSON>'` prints one Measurement.
import { loopOperation } from './agent-loop.js';
import { type ClientScenario, clientOperation } from './client-overhead.js';
import { timeOperations, type WorkerRequest } from './lib/measure.js';
import { mcpOperation } from './mcp.js';

const request = JSON.parse(process.argv[2] ?? '{}') as WorkerRequest;
const operation =
  request.bench === 'client'
    ? await clientOperation(request.baseURL, request.scenario as ClientScenario, request.contender)
    : request.bench === 'loop'
      ? await loopOperation(request.baseURL, request.contender)
      : request.bench === 'mcp'
        ? await mcpOperation(request.contender)
        : undefined;
if (!operation) throw new Error(`unknown benchmark ${request.bench}`);
const result = request.phases
  ? await (async () => {
      const measured = [];
      for (const phase of request.phases!)
        measured.push(await timeOperations(operation, phase.warmupOps, phase.ops));
      return measured;
    })()
  : await timeOperations(operation, request.warmupOps, request.ops);
// MCP contenders hold a server process: stop it before leaving.
await (operation as { close?: () => Promise<void> }).close?.();
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
