// One side of the kill -9 test of the stores (`store-crash.test.ts`): `start` runs the four-round
// tool run of the journal fixture on a session of the store URL, under its lease, with its journal
// (the parent kills it at a random moment); `resume` (a new process) takes the lease over, loads the
// folded session and continues the interrupted turn. Each side effect is one line of `effects.log`.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAICompatibleChatClient } from '@raf/client';
import { AgentBuilder, AgentSession, createStore } from '@raf/framework';
import { fixtureTools } from './four-round-run.js';

const [mode, baseURL, directory, url] = process.argv.slice(2) as ['start' | 'resume', string, string, string];
const client = new OpenAICompatibleChatClient({ model: 'mock', baseURL, maxRetries: 0 });
const effects = join(directory, 'effects.log');
const agent = new AgentBuilder('counter')
  .chatClient(client)
  .withTools(
    fixtureTools((line) => {
      appendFileSync(effects, `${mode} ${line}\n`);
      process.stdout.write('effect\n');
    }, 15),
  )
  .build();
const store = await createStore(url, { importPackage: async () => import('../index.js') });
const lease = await store.sessions.acquireLease('s', { waitMs: 10_000 });
const existing = await store.sessions.load('s');
const session = existing ? AgentSession.fromJSON(existing) : new AgentSession('s');
const journal = await store.sessions.openJournal(lease);
process.stdout.write('ready\n');
let last: unknown;
const run = mode === 'start' ? agent.run('count', { session, journal }) : agent.resume({ session, journal });
for await (const update of run) last = update;
await store.sessions.save(session.toJSON(), { expectedRevision: existing?.revision ?? 0 });
await lease.release();
await store.close();
await client.close();
process.stdout.write(`${JSON.stringify(last)}\n`);
