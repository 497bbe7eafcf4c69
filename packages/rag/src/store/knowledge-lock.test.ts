import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeStore } from './knowledge-store.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-rag-lock-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a knowledge index another writer holds', () => {
  it('waits the busy timeout, then says which file is locked (code SQLITE_BUSY), not "database is locked"', async () => {
    const path = join(dir, 'index.db');
    const store = await KnowledgeStore.open(path);
    const other = new BetterSqlite3(path);
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    let caught: unknown;
    try {
      store.batch(() => store.removeDocument('x'));
    } catch (error) {
      caught = error;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
    expect(caught).toMatchObject({
      code: 'SQLITE_BUSY',
      message: `${path} is locked by another writer (waited 5 s)`,
    });
    other.exec('ROLLBACK');
    other.close();
    store.batch(() => store.removeDocument('x'));
    store.close();
  }, 20_000);
});
