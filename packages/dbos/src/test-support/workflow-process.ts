// One process of the durable workflow kill test (`durable-workflow.test.ts`): `start RUN_ID` runs
// the fan-out workflow as a durable run (the parent kills it mid-superstep); `worker` takes over
// the runs of dead processes. Each node's side effect is one line of `effects.log` (`<pid> <node>`).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { DurableRuntime } from '../durable-runtime.js';
import { durableAgent } from '../index.js';
import { fanOutWorkflow } from './fan-out-workflow.js';

const [mode, directory, url, runId] = process.argv.slice(2) as ['start' | 'worker', string, string, string];
const effects = join(directory, 'effects.log');
const build = async () =>
  fanOutWorkflow((id) => {
    appendFileSync(effects, `${process.pid} ${id}\n`);
    process.stdout.write('effect\n');
  });

if (mode === 'worker') {
  const runtime = await DurableRuntime.open({ store: url, role: 'worker', resolve: build });
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => void runtime.close().then(() => process.exit(0)));
} else {
  const durable = await durableAgent(await build(), { store: url });
  process.stdout.write('ready\n');
  const stop = await durable.run('go', { runId });
  await durable.close();
  process.stdout.write(`${JSON.stringify(stop)}\n`);
}
