import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_CODE } from '../runs/orphan-runs.js';
import { storeSessionId } from '../runs/tenant-sessions.js';
import {
  type Fixture,
  readEvents,
  type Served,
  serve,
  startFixture,
  TOKEN_A,
} from '../test-support/served-fixture.js';

// A replica killed mid-run (`kill -9`) leaves its run `running` in the SQLite store, with its
// session's lease naming a pid that is gone. The next replica over the store must not show it
// running for ever: it ends it (failed, an `error` and a `finish`) when the run is looked at.
// biome-ignore lint/suspicious/noExplicitAny: JSON answers read loosely in assertions
type Loose = any;

let fixture: Fixture;
let served: Served;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-serve-orphans-'));
  file = join(dir, 'state.db');
  fixture = await startFixture({ rounds: 1 });
  served = await serve(fixture, `sqlite:${file}`);
});
afterAll(async () => {
  await served?.close();
  await fixture?.close();
  await rm(dir, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${served.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TOKEN_A}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
  });
const runOf = async (runId: string) => (await (await call(`/v1/runs/${runId}`)).json()) as Loose;

/** A run as a replica leaves it mid-turn: `running`, one event stored, its session's lease held. */
async function runningRun(sessionId: string) {
  const now = new Date().toISOString();
  const runId = randomUUID();
  await served.runs.create({
    runId,
    agent: 'noter',
    sessionId,
    tenant: 'a',
    status: 'running',
    lastSeq: 0,
    cancelRequested: false,
    createdAt: now,
    updatedAt: now,
  });
  await served.runs.append(runId, [{ seq: 1, event: { type: 'text-delta', delta: 'hal' } }]);
  const lease = await served.store.sessions.acquireLease(storeSessionId('a', sessionId), { waitMs: 0 });
  return { runId, lease };
}

/** The holder of the lease becomes a process that has exited: what `kill -9` leaves. */
function holderDies(token: string): void {
  const dead = spawnSync(process.execPath, ['-e', '']).pid;
  const db = new Database(file);
  try {
    db.prepare('UPDATE raf_session_leases SET pid = ? WHERE token = ?').run(dead, token);
  } finally {
    db.close();
  }
}

describe('a run whose replica died', () => {
  it('is ended failed when read: its events end with an error and a finish, cancel says so, the session takes a turn', async () => {
    const { runId, lease } = await runningRun('orphan-1');
    holderDies(lease.token);
    const run = await runOf(runId);
    expect(run).toMatchObject({ status: 'failed', finishReason: 'other', lastEventId: 3 });
    const events = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    expect(events.map((e) => e.data.type)).toEqual(['text-delta', 'error', 'finish']);
    expect(events[1]!.data).toMatchObject({
      code: INTERRUPTED_CODE,
      message: expect.stringMatching(/interrupted/),
    });
    const cancel = await call(`/v1/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(200);
    expect(((await cancel.json()) as Loose).status).toBe('failed');
    // The lease was let go: the next turn on the session runs.
    const next = (await (
      await call('/v1/agents/noter/runs', {
        method: 'POST',
        body: JSON.stringify({ input: 'note it', sessionId: 'orphan-1' }),
      })
    ).json()) as Loose;
    await readEvents(`${served.url}/v1/runs/${next.runId}/events`, TOKEN_A);
    expect((await runOf(next.runId)).status).toBe('finished');
    await lease.release();
  });

  it('a cancel ends it at once, even right after a read (no wait for the next check)', async () => {
    const { runId, lease } = await runningRun('orphan-2');
    expect((await runOf(runId)).status).toBe('running');
    holderDies(lease.token);
    const cancel = await call(`/v1/runs/${runId}/cancel`, { method: 'POST' });
    expect(((await cancel.json()) as Loose).status).toBe('failed');
    await lease.release();
  });

  it('is left running while its owner lives; a stream opened then ends with a finish once the owner is gone', async () => {
    const { runId, lease } = await runningRun('orphan-3');
    // The holder is this process: alive. Read and cancel leave it running (the owner stops it).
    expect((await runOf(runId)).status).toBe('running');
    const cancel = (await (await call(`/v1/runs/${runId}/cancel`, { method: 'POST' })).json()) as Loose;
    expect(cancel.status).toBe('running');
    const events = readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    await new Promise((r) => setTimeout(r, 300));
    holderDies(lease.token);
    const read = await events;
    expect(read.map((e) => e.data.type)).toEqual(['text-delta', 'error', 'finish']);
    expect((await runOf(runId)).status).toBe('failed');
    await lease.release();
  }, 20_000);
});

describe('a locked store', () => {
  it('answers start-run with 503 store_busy, not 409 session_busy', async () => {
    const db = new Database(file);
    try {
      db.exec('BEGIN EXCLUSIVE');
      const res = await call('/v1/agents/noter/runs', {
        method: 'POST',
        body: JSON.stringify({ input: 'note it', sessionId: 'brand-new' }),
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as Loose).error).toMatchObject({
        code: 'store_busy',
        message: expect.stringMatching(/busy \(locked/),
      });
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
  }, 20_000);
});
