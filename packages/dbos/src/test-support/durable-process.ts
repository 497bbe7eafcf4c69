// One process of the durable kill -9 test (`durable-crash.test.ts`): `start RUN_ID` runs the
// four-round tool run as a durable run (the parent kills it at a random moment); `worker` is a
// `raf worker` stand-in that takes over the runs of dead processes. Each side effect is one line
// of `effects.log` (`<pid> <callId>`).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAICompatibleChatClient } from '@raf/client';
import { AgentBuilder } from '@raf/framework';
import { DurableRuntime } from '../durable-runtime.js';
import { durableAgent } from '../index.js';
import { fixtureTools } from './four-round-run.js';

const [mode, baseURL, directory, url, runId] = process.argv.slice(2) as [
  'start' | 'worker',
  string,
  string,
  string,
  string | undefined,
];
const client = new OpenAICompatibleChatClient({ model: 'mock', baseURL, maxRetries: 0 });
const effects = join(directory, 'effects.log');
const build = async () =>
  new AgentBuilder('counter')
    .chatClient(client)
    .withTools(
      fixtureTools((line) => {
        appendFileSync(effects, `${process.pid} ${line}\n`);
        process.stdout.write('effect\n');
      }, 15),
    )
    .build();

if (mode === 'worker') {
  const runtime = await DurableRuntime.open({ store: url, role: 'worker', resolve: build });
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => void runtime.close().then(() => process.exit(0)));
} else {
  const durable = await durableAgent(await build(), { store: url });
  process.stdout.write('ready\n');
  const stop = await durable.run('count', { runId: runId ?? 'run' });
  await durable.close();
  await client.close();
  process.stdout.write(`${JSON.stringify(stop)}\n`);
}
