import { ConfigError, describeZodIssues } from '@raf/core';
import type BetterSqlite3 from 'better-sqlite3';
import type { GovernanceStore } from '../runtime-policy/governance-store.js';
import {
  emptyGovernance,
  type GovernanceData,
  governanceDataSchema,
} from '../runtime-policy/tool-governance.js';
import { lockedOr } from './sqlite-session-store.js';

/** Governance as one row of the `sqlite:PATH` store. */
export class SqliteGovernanceStore implements GovernanceStore {
  constructor(
    private readonly db: BetterSqlite3.Database,
    readonly path: string,
  ) {
    this.write(() =>
      db.exec(
        'CREATE TABLE IF NOT EXISTS raf_governance (id INTEGER PRIMARY KEY CHECK (id = 1), data TEXT NOT NULL)',
      ),
    );
  }

  private write(body: () => void): void {
    try {
      this.db.transaction(body).immediate();
    } catch (error) {
      throw lockedOr(error, this.path, 'cannot write governance');
    }
  }

  async load(): Promise<GovernanceData> {
    const row = this.db.prepare('SELECT data FROM raf_governance WHERE id = 1').get() as
      | { data: string }
      | undefined;
    if (!row) return emptyGovernance();
    const parsed = governanceDataSchema().safeParse(JSON.parse(row.data));
    if (!parsed.success)
      throw new ConfigError(`governance in ${this.path}: ${describeZodIssues(parsed.error)}`);
    return parsed.data;
  }

  async save(data: GovernanceData): Promise<void> {
    this.write(() =>
      this.db
        .prepare('INSERT OR REPLACE INTO raf_governance (id, data) VALUES (1, ?)')
        .run(JSON.stringify(data)),
    );
  }
}
