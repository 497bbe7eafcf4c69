import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  approvalBatchKey,
  type ISessionStore,
  type JournalEntry,
  type SecretStore,
  SessionConflictError,
  type SessionSnapshot,
  userMessage,
} from '@raf/core';
import { createStore, emptyGovernance, type GovernanceStore, SqliteSessionStore } from '@raf/framework';
import {
  type CheckpointStore,
  createCheckpointStore,
  functionExecutor,
  Workflow,
  WorkflowBuilder,
} from '@raf/workflow';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgCluster, postgresSkipReason, startPgCluster } from './testing/pg-cluster.js';

/**
 * One contract per store interface (SPEC §14.1), run on every backend: memory, file, SQLite and
 * PostgreSQL (a throwaway cluster; skipped with the reason when no binaries are installed).
 * `open()` is a second "process" on the same data: its own connection, its own instance.
 */
interface Opened {
  sessions: ISessionStore;
  governance: GovernanceStore;
  checkpoints: CheckpointStore;
  /** None on a file store (its secret records are files of its own folder). */
  secrets: SecretStore | undefined;
  close(): Promise<void>;
}
interface Backend {
  name: string;
  skip?: string | undefined;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  url(): string;
  /** Makes a dead process (on this host) the holder of session `id`'s lease. */
  plantDeadHolder?(id: string, pid: number): Promise<void>;
  /**
   * Moves the expiry of session `id`'s lease into the past, its holder unchanged: what a holder
   * frozen past its TTL (SIGSTOP, a VM pause) looks like to the other processes.
   */
  expireHolder?(id: string): Promise<void>;
}

let root: string;
let cluster: PgCluster | undefined;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'raf-store-contract-'));
});
afterAll(async () => {
  cluster?.stop();
  await rm(root, { recursive: true, force: true });
});

const memoryShared = new Map<string, Promise<Opened>>();
const backends: Backend[] = [
  {
    name: 'memory',
    setup: async () => {},
    teardown: async () => {},
    url: () => 'memory:',
  },
  {
    name: 'file',
    setup: async () => {},
    teardown: async () => {},
    url: () => `file:${join(root, 'file')}`,
    plantDeadHolder: async (id, pid) => {
      await writeFile(
        join(root, 'file', 'sessions', `${id}.lock`),
        JSON.stringify({ token: 'dead', pid, host: hostname(), expiresAt: Date.now() + 60_000 }),
      );
    },
    expireHolder: async (id) => {
      const path = join(root, 'file', 'sessions', `${id}.lock`);
      const holder = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
      await writeFile(path, JSON.stringify({ ...holder, expiresAt: Date.now() - 1 }));
    },
  },
  {
    name: 'sqlite',
    setup: async () => {},
    teardown: async () => {},
    url: () => `sqlite:${join(root, 'state.db')}`,
    plantDeadHolder: async (id, pid) => {
      const store = await SqliteSessionStore.open(join(root, 'state.db'));
      store.database
        .prepare('INSERT OR REPLACE INTO raf_session_leases VALUES (?, ?, ?, ?, ?)')
        .run(id, 'dead', pid, hostname(), Date.now() + 60_000);
      store.close();
    },
    expireHolder: async (id) => {
      const store = await SqliteSessionStore.open(join(root, 'state.db'));
      store.database
        .prepare('UPDATE raf_session_leases SET expires_at = ? WHERE session_id = ?')
        .run(Date.now() - 1, id);
      store.close();
    },
  },
  {
    name: 'postgres',
    skip: postgresSkipReason,
    setup: async () => {
      cluster ??= await startPgCluster();
    },
    teardown: async () => {},
    url: () => cluster?.url ?? '',
    plantDeadHolder: async (id, pid) => {
      const client = new pg.Client({ connectionString: cluster?.url });
      await client.connect();
      await client.query('INSERT INTO raf_session_leases VALUES ($1, $2, $3, $4, $5)', [
        id,
        'dead',
        pid,
        hostname(),
        Date.now() + 60_000,
      ]);
      await client.end();
    },
    expireHolder: async (id) => {
      const client = new pg.Client({ connectionString: cluster?.url });
      await client.connect();
      await client.query('UPDATE raf_session_leases SET expires_at = $2 WHERE session_id = $1', [
        id,
        Date.now() - 1,
      ]);
      await client.end();
    },
  },
];

async function openBackend(backend: Backend): Promise<Opened> {
  const open = async (): Promise<Opened> => {
    const store = await createStore(backend.url(), { importPackage });
    const checkpoints = await createCheckpointStore(backend.url(), { importPackage });
    return {
      sessions: store.sessions,
      governance: store.governance,
      checkpoints: checkpoints.store,
      secrets: store.secrets,
      close: async () => {
        await checkpoints.close();
        await store.close();
      },
    };
  };
  // memory: is one process's store: every "instance" is the same one.
  if (backend.name !== 'memory') return open();
  let shared = memoryShared.get('memory');
  if (!shared) {
    shared = open();
    memoryShared.set('memory', shared);
  }
  return shared;
}

// This package is what `postgres://` loads; from its own tests, by path.
const importPackage = async () => import('./index.js');

let counter = 0;
const uid = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

function snapshotOf(id: string, texts: string[]): SessionSnapshot {
  const now = new Date().toISOString();
  return {
    version: 1,
    id,
    messages: texts.map((t) => userMessage(t)),
    state: {},
    metadata: { owner: 'ana' },
    createdAt: now,
    updatedAt: now,
  };
}

const deadPid = (): number => {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
};

describe.each(backends)('$name store', (backend) => {
  const run = backend.skip ? describe.skip : describe;
  run(backend.skip ? `skipped: ${backend.skip}` : 'contract', () => {
    let a: Opened;
    let b: Opened;
    beforeAll(async () => {
      await backend.setup();
      a = await openBackend(backend);
      b = await openBackend(backend);
    }, 60_000);
    afterAll(async () => {
      if (backend.name === 'memory') return;
      await a?.close();
      await b?.close();
      await backend.teardown();
    });

    it('saves with a revision, compare-and-set: a stale revision is a SessionConflictError and writes nothing', async () => {
      const id = uid('cas');
      expect(await a.sessions.save(snapshotOf(id, ['one']), { expectedRevision: 0 })).toBe(1);
      const loaded = await b.sessions.load(id);
      expect(loaded?.revision).toBe(1);
      expect(loaded?.messages.map((m) => m.content)).toEqual(['one']);
      expect(await b.sessions.save(snapshotOf(id, ['one', 'two']), { expectedRevision: 1 })).toBe(2);
      const stale = a.sessions.save(snapshotOf(id, ['one', 'lost']), { expectedRevision: 1 });
      await expect(stale).rejects.toSatisfy(
        (e: unknown) => SessionConflictError.isInstance(e) && e.kind === 'revision' && e.message.includes(id),
      );
      await expect(a.sessions.save(snapshotOf(id, ['new']), { expectedRevision: 0 })).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
      expect((await a.sessions.load(id))?.messages.map((m) => m.content)).toEqual(['one', 'two']);
      // Without a revision the save is unconditional (the old contract).
      expect(await a.sessions.save(snapshotOf(id, ['forced']))).toBe(3);
      expect(await a.sessions.list()).toContain(id);
    });

    it('two concurrent compare-and-set saves of one revision: exactly one wins', async () => {
      const id = uid('race');
      await a.sessions.save(snapshotOf(id, ['base']));
      const results = await Promise.allSettled([
        a.sessions.save(snapshotOf(id, ['base', 'a']), { expectedRevision: 1 }),
        b.sessions.save(snapshotOf(id, ['base', 'b']), { expectedRevision: 1 }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected');
      expect(SessionConflictError.isInstance((lost as PromiseRejectedResult).reason)).toBe(true);
    });

    it('folds the journal into load (in-flight calls included), and a save compacts it', async () => {
      const id = uid('journal');
      await a.sessions.save(snapshotOf(id, ['hello']));
      const lease = await a.sessions.acquireLease(id);
      const journal = await a.sessions.openJournal(lease);
      const call = { id: 'c1', name: 'deploy', arguments: '{}' };
      const steps: JournalEntry[][] = [
        [{ type: 'messages', messages: [{ role: 'assistant', content: '', toolCalls: [call] }] }],
        [{ type: 'calls-started', callIds: ['c1', 'c2'] }],
        [
          { type: 'messages', messages: [{ role: 'tool', content: 'done', toolCallId: 'c1' }] },
          { type: 'state', key: 'provider_state::Memory', value: { runs: 1 } },
        ],
      ];
      for (const step of steps) await journal.append(step);
      const folded = await b.sessions.load(id);
      expect(folded?.revision).toBe(1);
      expect(folded?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
      expect(folded?.inFlight).toEqual(['c2']);
      expect(folded?.state).toEqual({ 'provider_state::Memory': { runs: 1 } });
      // The turn saves what it holds: the journal is compacted, nothing is folded twice.
      const { inFlight: _f, ...done } = folded as SessionSnapshot;
      expect(await a.sessions.save(done, { expectedRevision: 1 })).toBe(2);
      const compacted = await b.sessions.load(id);
      expect(compacted?.messages).toHaveLength(3);
      expect(compacted?.inFlight).toBeUndefined();
      // The same journal goes on on top of the new revision.
      await journal.append([{ type: 'messages', messages: [userMessage('next')] }]);
      expect((await b.sessions.load(id))?.messages.map((m) => m.content)).toEqual([
        'hello',
        '',
        'done',
        'next',
      ]);
      await lease.release();
    });

    it('a first turn that was never saved still loads from its journal, and is listed', async () => {
      const id = uid('fresh');
      const lease = await a.sessions.acquireLease(id);
      await (await a.sessions.openJournal(lease)).append([
        { type: 'messages', messages: [userMessage('hi')] },
      ]);
      await lease.release();
      const loaded = await b.sessions.load(id);
      expect(loaded).toMatchObject({ id, revision: 0, messages: [{ content: 'hi' }] });
      expect(await b.sessions.list()).toContain(id);
    });

    it('serializes leases: a second acquirer fails fast with waitMs 0 and waits for the release otherwise', async () => {
      const id = uid('lease');
      const first = await a.sessions.acquireLease(id);
      await expect(b.sessions.acquireLease(id, { waitMs: 0 })).rejects.toSatisfy(
        (e: unknown) => SessionConflictError.isInstance(e) && e.kind === 'lease' && e.message.includes(id),
      );
      const started = Date.now();
      const waiting = b.sessions.acquireLease(id, { waitMs: 10_000 });
      setTimeout(() => void first.release(), 150);
      const second = await waiting;
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(second.token).not.toBe(first.token);
      await first.release(); // idempotent, and does not release the second holder's lease
      await expect(a.sessions.acquireLease(id, { waitMs: 0 })).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
      await second.release();
      await (await a.sessions.acquireLease(id, { waitMs: 0 })).release();
    });

    it.runIf(backend.plantDeadHolder !== undefined)(
      'takes over the lease of a dead process at once',
      async () => {
        const id = uid('stale');
        await backend.plantDeadHolder?.(id, deadPid());
        const started = Date.now();
        const lease = await b.sessions.acquireLease(id, { waitMs: 5_000 });
        expect(Date.now() - started).toBeLessThan(2_000);
        await lease.release();
      },
    );

    const lostLease = (id: string) => (e: unknown) =>
      SessionConflictError.isInstance(e) && e.kind === 'lease' && e.message.includes(id);
    const texts = async (id: string) => (await b.sessions.load(id))?.messages.map((m) => m.content);

    it('fences journal appends and saves by the lease: once released and taken by another turn, the old one writes nothing', async () => {
      const id = uid('fence');
      const first = await a.sessions.acquireLease(id);
      const stale = await a.sessions.openJournal(first);
      await stale.append([{ type: 'messages', messages: [userMessage('one')] }]);
      await stale.append([]); // held: an empty append is the check, and passes
      expect(await a.sessions.save(snapshotOf(id, ['one']), { expectedRevision: 0, lease: first })).toBe(1);
      await first.release();
      const second = await b.sessions.acquireLease(id, { waitMs: 0 });
      const entry: JournalEntry = { type: 'messages', messages: [userMessage('stale')] };
      await expect(stale.append([entry])).rejects.toSatisfy(lostLease(id));
      await expect(stale.append([])).rejects.toSatisfy(lostLease(id));
      await expect(
        a.sessions.save(snapshotOf(id, ['one', 'stale']), { expectedRevision: 1, lease: first }),
      ).rejects.toSatisfy(lostLease(id));
      expect(await texts(id)).toEqual(['one']);
      // The holder writes on.
      await (await b.sessions.openJournal(second)).append([
        { type: 'messages', messages: [userMessage('two')] },
      ]);
      expect(
        await b.sessions.save(snapshotOf(id, ['one', 'two']), { expectedRevision: 1, lease: second }),
      ).toBe(2);
      await second.release();
      await expect(stale.append([entry])).rejects.toSatisfy(lostLease(id));
      expect(await texts(id)).toEqual(['one', 'two']);
    });

    it.runIf(backend.expireHolder !== undefined)(
      'a holder frozen past its lease’s expiry, taken over by another turn, journals and saves nothing more when it wakes',
      async () => {
        const id = uid('frozen');
        const frozen = await a.sessions.acquireLease(id);
        const stale = await a.sessions.openJournal(frozen);
        await stale.append([
          { type: 'messages', messages: [userMessage('go')] },
          { type: 'calls-started', callIds: ['call_0_0'] },
        ]);
        await backend.expireHolder?.(id);
        const taker = await b.sessions.acquireLease(id, { waitMs: 5_000 });
        expect(taker.token).not.toBe(frozen.token);
        const mine = await b.sessions.openJournal(taker);
        await mine.append([
          { type: 'messages', messages: [{ role: 'tool', content: 'interrupted', toolCallId: 'call_0_0' }] },
        ]);
        // The frozen turn wakes: its tool result, its check before the next model call, its save.
        await expect(
          stale.append([
            { type: 'messages', messages: [{ role: 'tool', content: 'late', toolCallId: 'call_0_0' }] },
          ]),
        ).rejects.toSatisfy(lostLease(id));
        await expect(stale.append([])).rejects.toSatisfy(lostLease(id));
        await expect(
          a.sessions.save(snapshotOf(id, ['late']), { expectedRevision: 0, lease: frozen }),
        ).rejects.toSatisfy(lostLease(id));
        const loaded = await b.sessions.load(id);
        expect(loaded?.messages.map((m) => m.content)).toEqual(['go', 'interrupted']);
        expect(loaded?.revision).toBe(0);
        // Its release does not free the taker's lease.
        await frozen.release();
        await expect(a.sessions.acquireLease(id, { waitMs: 0 })).rejects.toSatisfy(lostLease(id));
        await taker.release();
      },
    );

    it('takes the lease duration from ttlMs: renewed while held, refused when not a positive number', async () => {
      const id = uid('ttl');
      const held = await a.sessions.acquireLease(id, { ttlMs: 300 });
      // Three TTLs later it is still held: the holder renewed it.
      await new Promise((resolve) => setTimeout(resolve, 900));
      await expect(b.sessions.acquireLease(id, { waitMs: 0 })).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
      await (await a.sessions.openJournal(held)).append([]);
      await held.release();
      await expect(a.sessions.acquireLease(id, { ttlMs: 0 })).rejects.toThrow(/ttlMs/);
    });

    it('claims an approval batch for exactly one of two concurrent resumers', async () => {
      const id = uid('claim');
      const key = approvalBatchKey({ toolCalls: [], gatedCallIds: ['c2', 'c1'], round: 1 });
      const claims = await Promise.all([
        a.sessions.claimApproval(id, key),
        b.sessions.claimApproval(id, key),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await a.sessions.claimApproval(id, key)).toBe(false);
      expect(await a.sessions.claimApproval(id, `${key}x`)).toBe(true);
      await a.sessions.delete(id);
      expect(await b.sessions.claimApproval(id, key)).toBe(true);
    });

    it('deletes the snapshot with its journal', async () => {
      const id = uid('delete');
      await a.sessions.save(snapshotOf(id, ['x']));
      const lease = await a.sessions.acquireLease(id);
      await (await a.sessions.openJournal(lease)).append([
        { type: 'messages', messages: [userMessage('y')] },
      ]);
      await lease.release();
      await b.sessions.delete(id);
      expect(await a.sessions.load(id)).toBeUndefined();
      expect(await a.sessions.list()).not.toContain(id);
    });

    it('keeps governance: empty at first, what was saved after', async () => {
      const before = await a.governance.load();
      expect(before).toEqual(expect.objectContaining(emptyGovernance()));
      const data = { ...emptyGovernance(), ...before };
      await a.governance.save(data);
      expect(await b.governance.load()).toEqual(data);
    });

    it('keeps secret records per namespace and key: set, replaced, seen by another instance, deleted', async () => {
      if (backend.name === 'file') {
        expect(a.secrets).toBeUndefined();
        return;
      }
      const [one, two] = [a.secrets!, b.secrets!];
      const key = uid('secret');
      expect(await one.get('mcp-oauth', key)).toBeUndefined();
      await one.set('mcp-oauth', key, 'first');
      await one.set('mcp-oauth', key, 'second');
      await one.set('other', key, 'elsewhere');
      expect(await two.get('mcp-oauth', key)).toBe('second');
      expect(await two.get('other', key)).toBe('elsewhere');
      await two.delete('mcp-oauth', key);
      expect(await one.get('mcp-oauth', key)).toBeUndefined();
      expect(await one.get('other', key)).toBe('elsewhere');
    });

    it('keeps workflow checkpoints: one per superstep, listed, loaded, pruned, deleted', async () => {
      const builder = new WorkflowBuilder().setStart('a');
      ['a', 'b', 'c'].forEach((node, i, all) => {
        builder.addNode(
          node,
          functionExecutor((x) => `${x}${node}`),
          { output: i === all.length - 1 },
        );
        if (i > 0) builder.addEdge(all[i - 1] ?? '', node);
      });
      const workflow = new Workflow(builder.build(), { checkpoints: a.checkpoints });
      const runId = uid('run');
      await workflow.run('', { runId }).result;
      const list = await b.checkpoints.list(runId);
      expect(list.map((c) => c.step)).toEqual([0, 1, 2]);
      expect((await b.checkpoints.load(runId))?.state.outputs).toEqual([{ nodeId: 'c', value: 'abc' }]);
      expect(await b.checkpoints.runs()).toContain(runId);
      expect(await b.checkpoints.prune(runId, 1)).toBe(2);
      await b.checkpoints.delete(runId);
      expect(await a.checkpoints.list(runId)).toEqual([]);
    });
  });
});

describe('file store on disk', () => {
  it('drops a journal line a crash cut short, sweeps a killed writer’s temp files, ignores an old journal', async () => {
    const dir = await mkdtemp(join(root, 'disk-'));
    const store = (await createStore(`file:${dir}`)).sessions;
    await store.save(snapshotOf('s', ['saved']));
    const sessions = join(dir, 'sessions');
    const line = (text: string) => JSON.stringify({ type: 'messages', messages: [userMessage(text)] });
    await writeFile(join(sessions, 's.journal-1.jsonl'), `${line('kept')}\n${line('torn').slice(0, 20)}`);
    // A save killed between its rename and the old journal's removal: that journal is already in revision 1.
    await writeFile(join(sessions, 's.journal-0.jsonl'), `${line('saved')}\n`);
    await writeFile(join(sessions, `.s.json.${deadPid()}-0b8c7a3e-1111-4222-8333-944445555666.tmp`), '{');
    const fresh = (await createStore(`file:${dir}`)).sessions;
    const loaded = await fresh.load('s');
    expect(loaded?.messages.map((m) => m.content)).toEqual(['saved', 'kept']);
    expect((await readdir(sessions)).sort()).toEqual(['s.journal-1.jsonl', 's.json']);
  });
});
