// The process `serve.ts` measures: `served` runs `@raf/server` (memory store) with the loop agent
// and prints {url, token}; `GET /bench/stats` answers its CPU time and peak RSS. `plain` runs the
// same agent in-process (leased, journaled and saved on a memory store, like `raf run`), `runs` at
// once, and prints its CPU ms per run: the baseline.
import { OpenAICompatibleChatClient } from '@raf/client';
import { defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder, AgentSession, createStore } from '@raf/framework';
import { createServer, openRunStore, sendJson, TenantTokens } from '@raf/server';
import { z } from 'zod';

const [mode, baseURL, runsArg, warmupArg] = process.argv.slice(2);
// The default retries, as a deployment has them: a keep-alive socket the mock server closed is retried.
const client = new OpenAICompatibleChatClient({ model: 'loop', baseURL: baseURL!, apiKey: 'x' });
const agent = new AgentBuilder('bench')
  .chatClient(client)
  .withTool(
    defineTool({
      name: 'lookup',
      description: 'Look an item up',
      parameters: z.object({ id: z.number() }),
      execute: ({ id }) => toolSuccess({ id, value: `item ${id}` }),
    }),
  )
  .build();

const plainStore = mode === 'plain' ? await createStore('memory:') : undefined;

/**
 * The same run in-process, as `raf run` does it: the session's lease, the turn journal, the
 * compare-and-set save, on the same (memory) store the server uses. What is left is the serving.
 */
async function plainRun(): Promise<void> {
  const store = plainStore!;
  const session = new AgentSession();
  const lease = await store.sessions.acquireLease(session.id, { waitMs: 0 });
  const journal = await store.sessions.openJournal(lease);
  // `raf run` passes one too (Ctrl-C): cancellation is part of the run's cost on both sides.
  const controller = new AbortController();
  let finished = false;
  for await (const update of agent.run('go', { session, journal, signal: controller.signal }))
    if (update.type === 'finish') finished = update.reason === 'stop';
  await store.sessions.save(session.toJSON(), { expectedRevision: 0 });
  await lease.release();
  if (!finished) throw new Error('the plain run did not finish');
}

if (mode === 'plain') {
  const runs = Number(runsArg);
  const warmup = Number(warmupArg);
  for (let done = 0; done < warmup; done += 50) await Promise.all(Array.from({ length: 50 }, plainRun));
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: runs }, plainRun));
  const cpu = process.cpuUsage(start);
  process.stdout.write(
    `${JSON.stringify({ cpuMsPerRun: (cpu.user + cpu.system) / 1000 / runs, peakRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`,
  );
  await client.close();
  process.exit(0);
} else {
  const store = await createStore('memory:');
  const runs = await openRunStore(store);
  const { tokens, token } = TenantTokens.generated('bench');
  const app = createServer({
    agents: [{ name: 'loop', agent: async () => agent }],
    store,
    runs,
    tokens,
    limits: { maxConcurrentRunsPerTenant: 10_000 },
  });
  app.mount('/bench', ({ res }) => {
    const cpu = process.cpuUsage();
    sendJson(res, 200, {
      cpuMs: (cpu.user + cpu.system) / 1000,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
    });
  });
  const { url } = await app.listen();
  process.stdout.write(`${JSON.stringify({ url, token })}\n`);
  process.on('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}
