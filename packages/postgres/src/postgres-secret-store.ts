import type { SecretStore } from '@raf/core';
import type { Pool } from 'pg';

/** Secret records (MCP OAuth tokens) in the Postgres store's `raf_secrets` table; values never logged. */
export class PostgresSecretStore implements SecretStore {
  constructor(private readonly pool: Pool) {}

  async get(namespace: string, key: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ value: string }>(
      'SELECT value FROM raf_secrets WHERE namespace = $1 AND key = $2',
      [namespace, key],
    );
    return rows[0]?.value;
  }

  async set(namespace: string, key: string, value: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO raf_secrets (namespace, key, value) VALUES ($1, $2, $3) ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value',
      [namespace, key, value],
    );
  }

  async delete(namespace: string, key: string): Promise<void> {
    await this.pool.query('DELETE FROM raf_secrets WHERE namespace = $1 AND key = $2', [namespace, key]);
  }
}
