import { chmod } from 'node:fs/promises';
import type { SecretStore } from '@raf/core';
import type BetterSqlite3 from 'better-sqlite3';
import { lockedOr } from './sqlite-session-store.js';

export class InMemorySecretStore implements SecretStore {
  private readonly values = new Map<string, string>();
  async get(namespace: string, key: string) {
    return this.values.get(`${namespace}\n${key}`);
  }
  async set(namespace: string, key: string, value: string) {
    this.values.set(`${namespace}\n${key}`, value);
  }
  async delete(namespace: string, key: string) {
    this.values.delete(`${namespace}\n${key}`);
  }
}

/**
 * Secret records in the `sqlite:PATH` store's file (table `raf_secrets`). The first write makes
 * the file and its WAL readable by its owner only (0600): the tokens in it are the user's.
 */
export class SqliteSecretStore implements SecretStore {
  private private = false;

  constructor(
    private readonly db: BetterSqlite3.Database,
    readonly path: string,
  ) {
    this.write(() =>
      db.exec(
        'CREATE TABLE IF NOT EXISTS raf_secrets (namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, key))',
      ),
    );
  }

  private write(body: () => void): void {
    try {
      this.db.transaction(body).immediate();
    } catch (error) {
      // Never the value in the message: only what failed.
      throw lockedOr(error, this.path, 'cannot write a secret record');
    }
  }

  private async ownerOnly(): Promise<void> {
    if (this.private) return;
    for (const file of [this.path, `${this.path}-wal`, `${this.path}-shm`])
      await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    this.private = true;
  }

  async get(namespace: string, key: string): Promise<string | undefined> {
    const row = this.db
      .prepare('SELECT value FROM raf_secrets WHERE namespace = ? AND key = ?')
      .get(namespace, key) as { value: string } | undefined;
    return row?.value;
  }

  async set(namespace: string, key: string, value: string): Promise<void> {
    await this.ownerOnly();
    this.write(() =>
      this.db
        .prepare('INSERT OR REPLACE INTO raf_secrets (namespace, key, value) VALUES (?, ?, ?)')
        .run(namespace, key, value),
    );
  }

  async delete(namespace: string, key: string): Promise<void> {
    this.write(() =>
      this.db.prepare('DELETE FROM raf_secrets WHERE namespace = ? AND key = ?').run(namespace, key),
    );
  }
}
