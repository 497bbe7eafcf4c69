// One side of the kill -9 test of the turn journal: `start` runs the four-round tool run with a
// JSON-lines journal (the parent kills it at a random moment); `resume` (a new process) folds the
// journal into the session and continues the interrupted turn. Each side effect is one line of
// `effects.log`, written by the tool before it returns.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAICompatibleChatClient } from '@raf/client';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { fixtureTools, folded, JsonLinesJournal } from './journal-fixture.js';

const [mode, baseURL, directory] = process.argv.slice(2) as ['start' | 'resume', string, string];
const client = new OpenAICompatibleChatClient({ model: 'mock', baseURL, maxRetries: 0 });
const effects = join(directory, 'effects.log');
const agent = new AgentBuilder('counter')
  .chatClient(client)
  .withTools(
    fixtureTools((line) => {
      appendFileSync(effects, `${mode} ${line}\n`);
      // The parent counts these to kill the process inside the tool run.
      process.stdout.write('effect\n');
    }, 15),
  )
  .build();
const journal = new JsonLinesJournal(join(directory, 'journal.jsonl'));

let last: unknown;
if (mode === 'start') {
  process.stdout.write('ready\n');
  for await (const update of agent.run('count', { session: new AgentSession('s'), journal })) last = update;
} else {
  const session = AgentSession.fromJSON(folded('s', journal.read()));
  for await (const update of agent.resume({ session, journal })) last = update;
}
await client.close();
process.stdout.write(`${JSON.stringify(last)}\n`);
