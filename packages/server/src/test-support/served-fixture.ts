import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// A served agent on the mock model server (real HTTP on 127.0.0.1): `rounds` tool rounds of the
// gated `deploy` (when `gated`) or the plain `note`, then an answer. The model decides from the
// history it is sent, so any number of runs share one mock server in any order.
import { OpenAICompatibleChatClient } from '@raf/client';
import {
  type MockModelServer,
  type MockTurn,
  type RecordedRequest,
  startMockModelServer,
} from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder, createStore, type RafStore } from '@raf/framework';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { z } from 'zod';
import { TenantTokens } from '../auth/tenant-tokens.js';
import { openRunStore } from '../events/open-run-store.js';
import type { RunStore } from '../events/run-store.js';
import type { ServerApp } from '../http/app.js';
import type { ServedAgent } from '../runs/served-agents.js';
import { createServer } from '../start-server.js';

export const TOKENS = { 'token-of-tenant-a-0123456789': 'a', 'token-of-tenant-b-0123456789': 'b' } as const;
export const TOKEN_A = 'token-of-tenant-a-0123456789';
export const TOKEN_B = 'token-of-tenant-b-0123456789';

export function roundsModel(rounds: number, tool: string, text = 'all done') {
  return (request: RecordedRequest): MockTurn => {
    const messages = (request.body?.messages ?? []) as { role: string; tool_calls?: unknown[] }[];
    let done = 0;
    for (let i = messages.length - 1; i >= 0 && messages[i]!.role !== 'user'; i--)
      if (messages[i]!.role === 'assistant' && messages[i]!.tool_calls?.length) done++;
    if (done >= rounds) return { text };
    const users = messages.filter((m) => m.role === 'user').length;
    return { toolCalls: [{ id: `c${done}u${users}`, name: tool, arguments: { text: `round ${done}` } }] };
  };
}

export interface Fixture {
  model: MockModelServer;
  client: OpenAICompatibleChatClient;
  calls: string[];
  agents: ServedAgent[];
  close(): Promise<void>;
}

/** Two agents on one mock model: `deployer` (one gated round) and `noter` (`rounds` plain rounds). */
export async function startFixture(
  options: { rounds?: number; chunkDelayMs?: number } = {},
): Promise<Fixture> {
  const calls: string[] = [];
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploys',
    parameters: z.object({ text: z.string() }),
    requiresApproval: true,
    execute: ({ text }) => {
      calls.push(`deploy:${text}`);
      return toolSuccess(`deployed ${text}`);
    },
  });
  const note = defineTool({
    name: 'note',
    description: 'Takes a note',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => {
      calls.push(`note:${text}`);
      return toolSuccess(`noted ${text}`);
    },
  });
  const rounds = options.rounds ?? 4;
  const model = await startMockModelServer({
    recordRequests: false,
    turns: (request) => {
      const tools = ((request.body?.tools ?? []) as { function: { name: string } }[]).map(
        (t) => t.function.name,
      );
      const turn = tools.includes('deploy')
        ? roundsModel(1, 'deploy', 'deployed it')(request)
        : roundsModel(rounds, 'note')(request);
      return options.chunkDelayMs ? { ...turn, chunkDelayMs: options.chunkDelayMs } : turn;
    },
  });
  const client = new OpenAICompatibleChatClient({ model: 'mock', baseURL: model.baseURL, maxRetries: 0 });
  const deployer = new AgentBuilder('deployer').chatClient(client).withTools([deploy]).build();
  const noter = new AgentBuilder('noter').chatClient(client).withTools([note]).build();
  const agents: ServedAgent[] = [
    { name: 'deployer', description: 'Deploys with approval', agent: async () => deployer },
    { name: 'noter', agent: async () => noter },
  ];
  return {
    model,
    client,
    calls,
    agents,
    async close() {
      await client.close();
      await model.close();
    },
  };
}

export interface Served {
  app: ServerApp;
  url: string;
  store: RafStore;
  runs: RunStore;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 over `storeUrl` with the two tenants' tokens. */
export async function serve(
  fixture: Fixture,
  storeUrl = 'memory:',
  extra: Partial<Parameters<typeof createServer>[0]> = {},
): Promise<Served> {
  const store = await createStore(storeUrl, { importPackage: async () => import('@raf/postgres') });
  const runs = await openRunStore(store);
  const app = createServer({
    agents: fixture.agents,
    store,
    runs,
    tokens: TenantTokens.fromObject(TOKENS),
    ...extra,
  });
  const { url } = await app.listen();
  return {
    app,
    url,
    store,
    runs,
    async close() {
      await app.close();
      await runs.close();
      await store.close();
    },
  };
}

/** The events of an SSE answer (read with `eventsource-parser`), until it ends or `stopAfter` events. */
export async function readEvents(
  url: string,
  token: string,
  options: { lastEventId?: number; stopAfter?: number } = {},
): Promise<{ id: number; data: Record<string, unknown> }[]> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: {
      authorization: `Bearer ${token}`,
      ...(options.lastEventId !== undefined && { 'last-event-id': String(options.lastEventId) }),
    },
    signal: controller.signal,
  });
  if (res.status !== 200) throw new Error(`events: ${res.status} ${await res.text()}`);
  const events: { id: number; data: Record<string, unknown> }[] = [];
  const stream = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  try {
    for await (const message of stream) {
      events.push({ id: Number(message.id), data: JSON.parse(message.data) });
      if (options.stopAfter !== undefined && events.length >= options.stopAfter) {
        controller.abort();
        break;
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return events;
}

/** Polls `check` every 20 ms until it holds; fails naming `what` after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 20_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Replicas {
  fixture: Fixture;
  one: Served;
  two: Served;
  close(): Promise<void>;
}

/** Two servers of one fixture's agents on one SQLite file in a new temporary folder: two replicas. */
export async function sqliteReplicas(
  options: Parameters<typeof startFixture>[0],
  prefix: string,
): Promise<Replicas> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const fixture = await startFixture(options);
  const store = `sqlite:${join(dir, 'state.db')}`;
  const one = await serve(fixture, store);
  const two = await serve(fixture, store);
  return {
    fixture,
    one,
    two,
    async close() {
      await one.close();
      await two.close();
      await fixture.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
