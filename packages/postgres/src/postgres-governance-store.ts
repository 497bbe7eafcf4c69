import { ConfigError, describeZodIssues } from '@raf/core';
import {
  emptyGovernance,
  type GovernanceData,
  type GovernanceStore,
  governanceDataSchema,
} from '@raf/framework';
import type { Pool } from 'pg';

/** Governance as one row of the Postgres store. */
export class PostgresGovernanceStore implements GovernanceStore {
  constructor(private readonly pool: Pool) {}

  async load(): Promise<GovernanceData> {
    const { rows } = await this.pool.query<{ data: string }>('SELECT data FROM raf_governance WHERE id = 1');
    const row = rows[0];
    if (!row) return emptyGovernance();
    let value: unknown;
    try {
      value = JSON.parse(row.data);
    } catch (error) {
      throw new ConfigError('governance in PostgreSQL is not valid JSON', { cause: error });
    }
    const parsed = governanceDataSchema().safeParse(value);
    if (!parsed.success)
      throw new ConfigError(`governance in PostgreSQL: ${describeZodIssues(parsed.error)}`);
    return parsed.data;
  }

  async save(data: GovernanceData): Promise<void> {
    await this.pool.query(
      'INSERT INTO raf_governance (id, data) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data',
      [JSON.stringify(data)],
    );
  }
}
