// One process of the durable workflow tests (`durable-workflow.test.ts`,
// `durable-workflow-pause.test.ts`): `start RUN_ID` runs the workflow as a durable run (the parent
// may kill it) and, when it parks, prints the pause and waits for it to go on here; `worker` takes
// over the runs of dead processes. The workflow is the fan-out (default) or `pause`. Each node's
// side effect is one line of `effects.log` (`<pid> <what>`).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { DurableRuntime } from '../durable-runtime.js';
import { durableAgent } from '../index.js';
import { fanOutWorkflow } from './fan-out-workflow.js';
import { pauseWorkflow } from './pause-workflow.js';

const [mode, directory, url, runId, which = 'fan-out'] = process.argv.slice(2) as [
  'start' | 'worker',
  string,
  string,
  string,
  string?,
];
const effects = join(directory, 'effects.log');
const effect = (what: string) => {
  appendFileSync(effects, `${process.pid} ${what}\n`);
  process.stdout.write('effect\n');
};
const build = async () => (which === 'pause' ? pauseWorkflow(effect) : fanOutWorkflow(effect));

if (mode === 'worker') {
  const runtime = await DurableRuntime.open({ store: url, role: 'worker', resolve: build });
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => void runtime.close().then(() => process.exit(0)));
} else {
  const durable = await durableAgent(await build(), { store: url });
  process.stdout.write('ready\n');
  let stop = await durable.run('go', { runId });
  // The process that waits on its parked run: an answer from anywhere goes on here.
  while (stop.status === 'paused') {
    process.stdout.write(`${JSON.stringify(stop)}\n`);
    stop = await durable.wait(runId);
  }
  await durable.close();
  process.stdout.write(`${JSON.stringify(stop)}\n`);
}
