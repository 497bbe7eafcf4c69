import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockModelServer, type MockTurn, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Acceptance of `raf serve --durable` (issue 31): two `raf serve` processes on one Postgres store
 * are replicas; a durable run of a four-round agent on the mock model is killed with SIGKILL on
 * the replica streaming it, mid-run; the client reconnects to the other replica with
 * `Last-Event-ID` and reads exactly the rest; the run completes once (each finished command ran
 * once), and its approvals are answered through the other replica's API.
 */
const bin = fileURLToPath(new URL('./bin.ts', import.meta.url));
// The built binary when there is one (CI builds first: no tsx transpiling the CLI in every process), else the source.
const built = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const RAF_PROCESS = existsSync(built)
  ? [built]
  : ['--conditions=@raf/source', '--import', import.meta.resolve('tsx'), bin];
const TOKEN = 'serve-durable-token-0123456789';
const ROUNDS = 4;

let cluster: PgCluster | undefined;
let model: MockModelServer;
let store: string;
let root: string;
const children: ChildProcess[] = [];

/** Round r (the tool results since the user's message) runs `echo r<r> >> count.txt`; then the answer. */
function fourRounds(body: unknown): MockTurn {
  const messages = (body as { messages: { role: string }[] }).messages;
  let rounds = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role !== 'user'; i--)
    if (messages[i]!.role === 'tool') rounds++;
  // Slow enough that a kill lands while the model is answering, not between two steps.
  if (rounds >= ROUNDS) return { text: 'all four rounds done', delayMs: 300 };
  return {
    delayMs: rounds === 0 ? 0 : 600,
    toolCalls: [
      { id: `c${rounds}`, name: 'run_command', arguments: { command: `echo r${rounds} >> count.txt` } },
    ],
  };
}

function serve() {
  const child = spawn(
    process.execPath,
    [...RAF_PROCESS, 'serve', 'agent.yaml', '--store', store, '--durable', '--tokens', 'tokens.json'],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RAF_STORE: '' } },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const check = () => {
      const found = /raf serve: (http:\S+)/.exec(stdout);
      if (found) resolve(found[1]!);
    };
    child.stdout.on('data', check);
    void exited.then((code) => reject(new Error(`raf serve exited ${code}: ${stderr}`)));
  });
  return { child, exited, url, output: () => ({ stdout, stderr }) };
}

const auth = { authorization: `Bearer ${TOKEN}` };
const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

interface Event {
  id: number;
  data: { type: string; reason?: string; callId?: string };
}

/**
 * Reads the run's events (`id:`, `data:` frames) until the stream ends or `stop(event)` says so,
 * when the connection is dropped.
 */
async function readEvents(
  url: string,
  lastEventId: number | undefined,
  stop: (event: Event) => boolean = () => false,
): Promise<Event[]> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { ...auth, ...(lastEventId !== undefined && { 'last-event-id': String(lastEventId) }) },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const events: Event[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const id = /^id: (\d+)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (id === undefined || data === undefined) continue;
        const event = { id: Number(id), data: JSON.parse(data) as Event['data'] };
        events.push(event);
        if (stop(event)) {
          controller.abort();
          return events;
        }
      }
    }
  } catch (error) {
    // The replica was killed while streaming: the client has what it read.
    if (!controller.signal.aborted && events.length === 0) throw error;
  }
  return events;
}

async function until(what: string, probe: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(postgresSkipReason !== undefined)('raf serve --durable: replicas under kill -9', () => {
  beforeAll(async () => {
    cluster = await startPgCluster();
    store = cluster.createDatabase('serve_durable');
    root = await mkdtemp(join(tmpdir(), 'raf-serve-durable-'));
    model = await startMockModelServer({ turns: (request) => fourRounds(request.body) });
    await writeFile(join(root, 'tokens.json'), JSON.stringify({ [TOKEN]: 'team-a' }));
    await writeFile(
      join(root, 'agent.yaml'),
      `name: counter\nmodel: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" } }\ncontexts:\n  - kind: workspace\n    name: here\n    config: { root: ., policy: approve }\ntools:\n  - kind: file\n`,
    );
  }, 120_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await model?.close();
    cluster?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('the other replica streams exactly the rest, takes the approvals and finishes the run once', async () => {
    // Launched one after the other: DBOS's first launch creates its schema.
    const a = serve();
    const urlA = await a.url;
    const b = serve();
    const urlB = await b.url;

    const started = await post(`${urlA}/v1/agents/counter/runs`, { input: 'count four times' });
    expect(started.status, await started.clone().text()).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    const events = (from: string) => `${from}/v1/runs/${runId}/events`;

    // Round 0 pauses for its command: the client reads to the pause and answers on replica A.
    const seen = await readEvents(events(urlA), undefined);
    expect(seen.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
    const approve = (url: string, callId: string) =>
      post(`${url}/v1/runs/${runId}/approvals`, { approvals: [{ callId, approved: true }] });
    expect((await approve(urlA, 'c0')).status).toBe(202);

    // Replica A streams round 0's command result; killed while the model answers round 1.
    seen.push(...(await readEvents(events(urlA), seen.at(-1)!.id, (e) => e.data.type === 'tool-result')));
    expect(seen.at(-1)?.data).toMatchObject({ type: 'tool-result', callId: 'c0' });
    a.child.kill('SIGKILL');
    await a.exited;
    // Killed mid-run: the run is still running, with events of its rounds still to come.
    const midRun = (await (await fetch(`${urlB}/v1/runs/${runId}`, { headers: auth })).json()) as {
      status: string;
    };
    expect(midRun.status).toBe('running');

    // The client goes on with replica B from the last event it has: B takes the run over.
    for (let round = 1; round <= ROUNDS; round++) {
      seen.push(...(await readEvents(events(urlB), seen.at(-1)!.id)));
      const last = seen.at(-1)!.data;
      if (round === ROUNDS) {
        expect(last).toMatchObject({ type: 'finish', reason: 'stop' });
        break;
      }
      expect(last).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
      const answered = await approve(urlB, `c${round}`);
      expect(answered.status, await answered.clone().text()).toBe(202);
    }

    // No duplicate, no gap: 1, 2, …, and the same as a full replay.
    expect(seen.map((e) => e.id)).toEqual(seen.map((_, i) => i + 1));
    const replay = await readEvents(events(urlB), undefined);
    expect(replay).toEqual(seen);
    expect(seen.filter((e) => e.data.type === 'tool-result').map((e) => e.data.callId)).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
    ]);
    expect(seen.filter((e) => e.data.type === 'finish' && e.data.reason === 'stop')).toHaveLength(1);
    // Each command ran once (the kill came between two steps' records, not inside a command).
    expect(await readFile(join(root, 'count.txt'), 'utf8')).toBe('r0\nr1\nr2\nr3\n');
    const record = (await (await fetch(`${urlB}/v1/runs/${runId}`, { headers: auth })).json()) as {
      status: string;
      lastEventId: number;
    };
    expect(record).toMatchObject({ status: 'finished', lastEventId: seen.length });
    // A second answer to a pause already answered is refused.
    expect((await approve(urlB, 'c3')).status).toBe(409);

    b.child.kill('SIGTERM');
    await until('replica B to stop', async () => b.child.exitCode !== null);
  }, 180_000);

  it('cancel through the API: a parked durable run ends cancelled; answering it then is refused', async () => {
    const c = serve();
    const url = await c.url;
    const started = await post(`${url}/v1/agents/counter/runs`, { input: 'count and stop' });
    const { runId } = (await started.json()) as { runId: string };
    const seen = await readEvents(`${url}/v1/runs/${runId}/events`, undefined);
    expect(seen.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
    const cancelled = await post(`${url}/v1/runs/${runId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ status: 'cancelled' });
    const rest = await readEvents(`${url}/v1/runs/${runId}/events`, seen.at(-1)!.id);
    expect(rest.map((e) => e.data)).toEqual([
      expect.objectContaining({ type: 'finish', reason: 'cancelled' }),
    ]);
    const answer = await post(`${url}/v1/runs/${runId}/approvals`, {
      approvals: [{ callId: 'c0', approved: true }],
    });
    expect(answer.status).toBe(409);
    // The session takes a new turn: the cancelled run's approval batch was closed in it.
    const { sessionId } = (await (await fetch(`${url}/v1/runs/${runId}`, { headers: auth })).json()) as {
      sessionId: string;
    };
    const next = await post(`${url}/v1/agents/counter/runs`, { input: 'count and stop', sessionId });
    expect(next.status, await next.clone().text()).toBeLessThan(300);
    const { runId: nextId } = (await next.json()) as { runId: string };
    const again = await readEvents(`${url}/v1/runs/${nextId}/events`, undefined);
    expect(again.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
    expect((await post(`${url}/v1/runs/${nextId}/cancel`, {})).status).toBe(200);
    c.child.kill('SIGTERM');
    await until('the replica to stop', async () => c.child.exitCode !== null);
  }, 120_000);
});
