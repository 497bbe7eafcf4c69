// The state stores (SPEC §14.1, issue 28): save p50 of a 50-message session per backend (file,
// SQLite, Postgres on a throwaway cluster when its binaries are installed), the journal's cost per
// tool round (three appends: the assistant message, calls-started, the results), and the agent
// loop with the file journal against the same loop without one. Wall time, in this process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool, type JournalEntry, type SessionSnapshot, toolSuccess } from '@raf/core';
import { AgentBuilder, AgentSession, createStore, type RafStore } from '@raf/framework';
import { z } from 'zod';

export interface StoreBenchResult {
  saveP50Ms: { file: number; sqlite: number; postgres: number | null };
  journalRoundP50Ms: { file: number; sqlite: number; postgres: number | null };
  /** Wall ms per tool round of the raf loop, without and with the file journal. */
  loopRoundMs: { plain: number; fileJournal: number };
  loopFileJournalOverPlain: number;
}

const p50 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;

function session(id: string): SessionSnapshot {
  const now = new Date().toISOString();
  const messages = Array.from({ length: 50 }, (_, i) =>
    i % 2 === 0
      ? { role: 'user' as const, content: `question ${i}: ${'lorem ipsum '.repeat(20)}` }
      : { role: 'assistant' as const, content: `answer ${i}: ${'dolor sit amet '.repeat(30)}` },
  );
  return { version: 1, id, messages, state: {}, metadata: {}, createdAt: now, updatedAt: now };
}

const ROUND: JournalEntry[][] = [
  [
    {
      type: 'messages',
      messages: [
        { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'lookup', arguments: '{"id":1}' }] },
      ],
    },
  ],
  [{ type: 'calls-started', callIds: ['c'] }],
  [{ type: 'messages', messages: [{ role: 'tool', content: '{"id":1,"value":"item 1"}', toolCallId: 'c' }] }],
];

async function measureStore(store: RafStore, runs: number): Promise<{ save: number; round: number }> {
  const saves: number[] = [];
  const snapshot = session('bench');
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await store.sessions.save(snapshot);
    saves.push(performance.now() - started);
  }
  const lease = await store.sessions.acquireLease('bench-journal');
  const journal = await store.sessions.openJournal(lease);
  const rounds: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    for (const step of ROUND) await journal.append(step);
    rounds.push(performance.now() - started);
  }
  await lease.release();
  return { save: p50(saves), round: p50(rounds) };
}

async function loopRound(
  baseURL: string,
  store: RafStore | undefined,
  runs: number,
  rounds: number,
): Promise<number> {
  const { OpenAICompatibleChatClient } = await import('@raf/client');
  const client = new OpenAICompatibleChatClient({ model: 'loop', baseURL, apiKey: 'x' });
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
  const lease = store ? await store.sessions.acquireLease('loop') : undefined;
  const journal = store && lease ? await store.sessions.openJournal(lease) : undefined;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    for await (const _ of agent.run('go', { session: new AgentSession(), ...(journal && { journal }) })) {
    }
    times.push(performance.now() - started);
  }
  await lease?.release();
  await client.close();
  return p50(times.slice(Math.floor(runs / 5))) / rounds;
}

export async function runStoreBench(
  baseURL: string,
  rounds: number,
  options: { runs: number; loopRuns: number },
): Promise<StoreBenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'raf-bench-store-'));
  const { postgresSkipReason, startPgCluster } = await import(
    '../packages/postgres/src/testing/pg-cluster.js'
  );
  const cluster = postgresSkipReason ? undefined : await startPgCluster();
  try {
    const file = await createStore(`file:${join(dir, 'file')}`);
    const sqlite = await createStore(`sqlite:${join(dir, 'state.db')}`);
    const postgres = cluster
      ? await createStore(cluster.url, { importPackage: () => import('../packages/postgres/src/index.js') })
      : undefined;
    const [f, s, p] = [
      await measureStore(file, options.runs),
      await measureStore(sqlite, options.runs),
      postgres ? await measureStore(postgres, options.runs) : undefined,
    ];
    // Alternated, so a slow moment of the machine falls on both.
    let plain = 0;
    let journaled = 0;
    for (let i = 0; i < 3; i++) {
      plain += await loopRound(baseURL, undefined, options.loopRuns, rounds);
      journaled += await loopRound(baseURL, file, options.loopRuns, rounds);
    }
    await Promise.all([file.close(), sqlite.close(), postgres?.close()]);
    return {
      saveP50Ms: { file: f.save, sqlite: s.save, postgres: p?.save ?? null },
      journalRoundP50Ms: { file: f.round, sqlite: s.round, postgres: p?.round ?? null },
      loopRoundMs: { plain: plain / 3, fileJournal: journaled / 3 },
      loopFileJournalOverPlain: journaled / plain,
    };
  } finally {
    cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
