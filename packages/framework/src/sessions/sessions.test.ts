import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionError, userMessage } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentSession } from './agent-session.js';
import { FileSessionStore } from './file-session-store.js';
import { cleanupExpiredSessions, InMemorySessionStore, ScopedSessionStore } from './session-stores.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-sessions-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function pausedSession(): AgentSession {
  const session = new AgentSession('s-1');
  session.addMessages([
    userMessage('deploy'),
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'deploy', arguments: '{}' }] },
  ]);
  session.pendingApproval = {
    toolCalls: [{ id: 'c1', name: 'deploy', arguments: '{}' }],
    gatedCallIds: ['c1'],
    resolvedTargets: { c1: '/srv' },
    round: 0,
  };
  session.setProviderState('Memory', { runs: 3, notes: ['a'] });
  session.metadata.owner = 'ana';
  return session;
}

describe('AgentSession', () => {
  it('round-trips everything through JSON: messages, pending approval, provider state, metadata', () => {
    const session = pausedSession();
    const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(session)));
    expect(restored.toJSON()).toEqual(session.toJSON());
    expect(restored.getProviderState('Memory')).toEqual({ runs: 3, notes: ['a'] });
    expect(session.toJSON().state).toEqual({ 'provider_state::Memory': { runs: 3, notes: ['a'] } });
  });

  it('reports malformed data as a SessionError naming the field', () => {
    expect(() =>
      AgentSession.fromJSON({ version: 1, id: 'x', messages: [{ role: 'robot', content: 1 }] }),
    ).toThrow(SessionError);
    expect(() => AgentSession.fromJSON({ version: 2 }, 'backup.json')).toThrow(
      /^backup\.json is not a valid session: version: /,
    );
  });

  it('refuses a timestamp it could not write back, when loading rather than on the next save', () => {
    const data = { ...pausedSession().toJSON(), updatedAt: 'yesterday' };
    expect(() => AgentSession.fromJSON(data, 'old.json')).toThrow(
      /^old\.json is not a valid session: updatedAt: expected a date/,
    );
    const shifted = { ...pausedSession().toJSON(), createdAt: '2026-11-30T10:00:00+02:00' };
    expect(AgentSession.fromJSON(shifted).toJSON().createdAt).toBe('2026-11-30T08:00:00.000Z');
  });
});

describe('FileSessionStore', () => {
  it('saves <dir>/<id>.json atomically and loads it back', async () => {
    const store = new FileSessionStore(join(dir, 'sessions'));
    await store.save(pausedSession().toJSON());
    expect(await readdir(join(dir, 'sessions'))).toEqual(['s-1.json']);
    expect((await store.load('s-1'))?.pendingApproval?.gatedCallIds).toEqual(['c1']);
    expect(await store.load('missing')).toBeUndefined();
    expect(await store.list()).toEqual(['s-1']);
    await store.delete('s-1');
    expect(await store.list()).toEqual([]);
  });

  it('leaves no temporary files behind, even across many concurrent saves', async () => {
    const store = new FileSessionStore(dir);
    const session = pausedSession();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        session.metadata.n = i;
        return store.save(session.toJSON());
      }),
    );
    expect(await readdir(dir)).toEqual(['s-1.json']);
    expect(typeof (await store.load('s-1'))?.metadata.n).toBe('number');
  });

  it('reports a corrupt file with its path instead of crashing, and leaves it in place', async () => {
    const store = new FileSessionStore(dir);
    await writeFile(join(dir, 'bad.json'), '{"version":1, "id": "bad", "messages": [');
    await expect(store.load('bad')).rejects.toThrow(
      `session file ${join(dir, 'bad.json')} is corrupt (not valid JSON`,
    );
    await writeFile(join(dir, 'odd.json'), '{"version":1,"id":"odd"}');
    await expect(store.load('odd')).rejects.toThrow(/is not a valid session: messages: /);
    expect((await readdir(dir)).sort()).toEqual(['bad.json', 'odd.json']);
  });

  it('refuses ids that would name another path', async () => {
    const store = new FileSessionStore(dir);
    await expect(store.load('../escape')).rejects.toThrow(/session id "..\/escape" is not allowed/);
    await expect(store.save({ ...pausedSession().toJSON(), id: 'a/b' })).rejects.toThrow(SessionError);
  });

  it('keeps ids with a colon (scoped ids) as files', async () => {
    const scoped = new ScopedSessionStore(new FileSessionStore(dir), 'user-7');
    await scoped.save(pausedSession().toJSON());
    expect(await readdir(dir)).toEqual(['user-7%3A%3As-1.json']);
    expect((await scoped.load('s-1'))?.id).toBe('s-1');
  });
});

describe('ScopedSessionStore and TTL cleanup', () => {
  it('isolates tenants that share one store', async () => {
    const shared = new InMemorySessionStore();
    const ana = new ScopedSessionStore(shared, 'ana');
    const bo = new ScopedSessionStore(shared, 'bo');
    await ana.save(pausedSession().toJSON());
    expect(await bo.load('s-1')).toBeUndefined();
    expect(await ana.list()).toEqual(['s-1']);
    expect(await bo.list()).toEqual([]);
    expect(await shared.list()).toEqual(['ana::s-1']);
  });

  it('deletes only sessions older than the TTL, and leaves unreadable ones alone', async () => {
    const store = new FileSessionStore(dir);
    const old = { ...pausedSession().toJSON(), id: 'old', updatedAt: '2020-01-01T00:00:00.000Z' };
    await store.save(old);
    await store.save(pausedSession().toJSON());
    await writeFile(join(dir, 'broken.json'), 'nope');
    expect(await cleanupExpiredSessions(store, 24 * 3600_000)).toEqual(['old']);
    expect((await store.list()).sort()).toEqual(['broken', 's-1']);
  });
});
