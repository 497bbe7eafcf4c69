import { describe, expect, it } from 'vitest';
import { InMemoryRunStore } from './memory-run-store.js';
import type { RunRecord } from './run-store.js';

const record = (runId: string, status: RunRecord['status']): RunRecord => ({
  runId,
  agent: 'a',
  sessionId: 's',
  tenant: 't',
  status,
  lastSeq: 0,
  cancelRequested: false,
  createdAt: '',
  updatedAt: '',
});

describe('InMemoryRunStore', () => {
  it('forgets the oldest stopped runs past maxRuns, never a running or paused one', async () => {
    const store = new InMemoryRunStore(2);
    await store.create(record('running', 'running'));
    await store.create(record('old', 'finished'));
    await store.create(record('paused', 'paused'));
    await store.create(record('new', 'finished'));
    expect(await store.get('old')).toBeUndefined();
    for (const id of ['running', 'paused', 'new']) expect(await store.get(id)).toBeDefined();
  });

  it('refuses an event out of sequence', async () => {
    const store = new InMemoryRunStore();
    await store.create(record('r', 'running'));
    await store.append('r', [{ seq: 1, event: { type: 'warning', message: 'x' } }]);
    await expect(store.append('r', [{ seq: 3, event: { type: 'warning', message: 'y' } }])).rejects.toThrow(
      /after 1/,
    );
    expect(await store.read('r', 0, 10)).toHaveLength(1);
  });
});
