import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

// SPEC §14.4 on a server: an MCP server's question (the official SDK's elicitInput) reaches the
// client as an `input-request` event and `pendingQuestions`; `POST /v1/runs/{id}/answers` answers
// it, from another replica too; another tenant cannot see or answer it.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const testServer = join(repo, 'packages/mcp/src/test-support/test-server.ts');
const TOKEN_A = 'elicit-token-of-tenant-a-0123';
const TOKEN_B = 'elicit-token-of-tenant-b-0123';
let dir: string;
let model: MockModelServer;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-serve-elicit-')));
  model = await startMockModelServer({
    turns: (request) => {
      const messages = (request.body as { messages: { role: string }[] }).messages;
      return messages.at(-1)?.role === 'tool'
        ? { text: 'thanks' }
        : { toolCalls: [{ id: 'c1', name: 'ask_name', arguments: {} }] };
    },
  });
  await writeFile(join(dir, 'tokens.json'), JSON.stringify({ [TOKEN_A]: 'a', [TOKEN_B]: 'b' }));
  await writeFile(
    join(dir, 'asker.yaml'),
    `name: asker
model: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" } }
tools:
  - kind: mcp
    name: people
    config:
      command: ${JSON.stringify(process.execPath)}
      args: [--import, tsx, ${JSON.stringify(testServer)}]
      cwd: ${JSON.stringify(repo)}
      env: { TEST_SERVER_LOG: ${JSON.stringify(join(dir, 'events.jsonl'))} }
`,
  );
});
afterAll(async () => {
  await model?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function serve(store: string) {
  const memory = createMemoryIO({ cwd: dir });
  const exit = main(['serve', 'asker.yaml', '--store', store, '--tokens', 'tokens.json'], memory.io);
  const deadline = Date.now() + 60_000;
  while (!/raf serve: http/.test(memory.out())) {
    if (Date.now() > deadline) throw new Error(`raf serve did not start: ${memory.err()}`);
    const early = await Promise.race([exit, new Promise((r) => setTimeout(() => r(undefined), 25))]);
    if (early !== undefined) throw new Error(`raf serve exited ${early}: ${memory.err()}`);
  }
  const url = memory.out().match(/raf serve: (\S+)/)![1]!;
  return {
    url,
    stop: async () => {
      memory.interrupt();
      return exit;
    },
  };
}

const as = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

async function elicited(): Promise<unknown[]> {
  const text = await readFile(join(dir, 'events.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; result?: unknown })
    .filter((e) => e.event === 'elicited')
    .map((e) => e.result);
}

/** The events until `stop` says so (the run goes on: it waits for the answer). */
async function readUntil(url: string, stop: (event: { type: string }) => boolean) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: as(TOKEN_A), signal: controller.signal });
  const events: Record<string, unknown>[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
        buffer = buffer.slice(end + 2);
        if (data === undefined) continue;
        const event = JSON.parse(data) as { type: string };
        events.push(event);
        if (stop(event)) {
          controller.abort();
          return events;
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return events;
}

describe('raf serve: MCP elicitation through the API', { timeout: 120_000 }, () => {
  it('the question is an input-request event and a pending question; another replica answers it; tenants are apart', async () => {
    const store = `sqlite:${join(dir, 'state.db')}`;
    const one = await serve(store);
    const two = await serve(store);
    try {
      const started = await fetch(`${one.url}/v1/agents/asker/runs`, {
        method: 'POST',
        headers: as(TOKEN_A),
        body: JSON.stringify({ input: 'who am I?' }),
      });
      expect(started.status).toBe(201);
      const { runId } = (await started.json()) as { runId: string };
      const seen = await readUntil(`${one.url}/v1/runs/${runId}/events`, (e) => e.type === 'input-request');
      const question = seen.at(-1)!;
      expect(question).toMatchObject({
        type: 'input-request',
        callId: 'c1',
        questionId: 'c1.0',
        source: 'mcp:people',
        message: 'What is your name?',
        mode: 'form',
      });
      // Any replica sees the question waiting (the run is running: its call waits).
      let view: { status: string; pendingQuestions: { questionId: string }[] } | undefined;
      for (let i = 0; i < 100 && !view?.pendingQuestions.length; i++) {
        view = (await (
          await fetch(`${two.url}/v1/runs/${runId}`, { headers: as(TOKEN_A) })
        ).json()) as typeof view;
        if (!view?.pendingQuestions.length) await new Promise((r) => setTimeout(r, 50));
      }
      expect(view).toMatchObject({ status: 'running', pendingQuestions: [{ questionId: 'c1.0' }] });
      const answer = (token: string, body: unknown) =>
        fetch(`${two.url}/v1/runs/${runId}/answers`, {
          method: 'POST',
          headers: as(token),
          body: JSON.stringify(body),
        });
      // Another tenant: the run does not exist for it.
      expect((await answer(TOKEN_B, { answers: [{ questionId: 'c1.0', action: 'decline' }] })).status).toBe(
        404,
      );
      // An answer that does not fit the form is refused, and the question still waits.
      const wrong = await answer(TOKEN_A, {
        answers: [{ questionId: 'c1.0', action: 'accept', content: { name: '' } }],
      });
      expect(wrong.status).toBe(400);
      expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('invalid_answer');
      const given = await answer(TOKEN_A, {
        answers: [{ questionId: 'c1.0', action: 'accept', content: { name: 'Ada', age: 36 } }],
      });
      expect(given.status, await given.clone().text()).toBe(202);
      expect((await answer(TOKEN_A, { answers: [{ questionId: 'c1.0', action: 'decline' }] })).status).toBe(
        409,
      );
      // The rest of the run, from the other replica: the tool's result carries the answer.
      const rest = await readUntil(`${two.url}/v1/runs/${runId}/events`, () => false);
      expect(rest.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
      expect(rest.find((e) => e.type === 'tool-result')).toMatchObject({
        callId: 'c1',
        result: { ok: true },
      });
      expect(await elicited()).toEqual([{ action: 'accept', content: { name: 'Ada', age: 36 } }]);
      const after = (await (await fetch(`${one.url}/v1/runs/${runId}`, { headers: as(TOKEN_A) })).json()) as {
        status: string;
        pendingQuestions: unknown[];
      };
      expect(after).toMatchObject({ status: 'finished', pendingQuestions: [] });
    } finally {
      expect(await one.stop()).toBe(0);
      expect(await two.stop()).toBe(0);
    }
  });
});
