import type { Checkpoint, CheckpointInfo, CheckpointStore } from '@raf/workflow';
import { parseCheckpoint } from '@raf/workflow';
import type { Pool } from 'pg';

/** Workflow checkpoints of many runs in the Postgres store (one row each). */
export class PostgresCheckpointStore implements CheckpointStore {
  constructor(private readonly pool: Pool) {}

  async save(checkpoint: Checkpoint): Promise<void> {
    await this.pool.query(
      `INSERT INTO raf_checkpoints (run_id, id, step, fingerprint, parent_id, created_at, data)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (run_id, id) DO UPDATE SET data = EXCLUDED.data, step = EXCLUDED.step`,
      [
        checkpoint.runId,
        checkpoint.id,
        checkpoint.step,
        checkpoint.fingerprint,
        checkpoint.parentId ?? null,
        checkpoint.createdAt,
        JSON.stringify(checkpoint),
      ],
    );
  }

  async load(runId: string, checkpointId?: string): Promise<Checkpoint | undefined> {
    const { rows } =
      checkpointId === undefined
        ? await this.pool.query<{ data: string }>(
            'SELECT data FROM raf_checkpoints WHERE run_id = $1 ORDER BY id DESC LIMIT 1',
            [runId],
          )
        : await this.pool.query<{ data: string }>(
            'SELECT data FROM raf_checkpoints WHERE run_id = $1 AND id = $2',
            [runId, checkpointId],
          );
    const row = rows[0];
    return row ? parseCheckpoint(row.data, `checkpoint of run ${runId} in PostgreSQL`) : undefined;
  }

  async list(runId: string): Promise<CheckpointInfo[]> {
    const { rows } = await this.pool.query<{
      id: string;
      run_id: string;
      step: number;
      fingerprint: string;
      parent_id: string | null;
      created_at: string;
      bytes: number;
    }>(
      'SELECT id, run_id, step, fingerprint, parent_id, created_at, octet_length(data) AS bytes FROM raf_checkpoints WHERE run_id = $1 ORDER BY id',
      [runId],
    );
    return rows.map((r) => ({
      id: r.id,
      runId: r.run_id,
      step: r.step,
      fingerprint: r.fingerprint,
      ...(r.parent_id !== null && { parentId: r.parent_id }),
      createdAt: r.created_at,
      byteSize: Number(r.bytes),
    }));
  }

  async prune(runId: string, keep: number): Promise<number> {
    const result = await this.pool.query(
      `DELETE FROM raf_checkpoints WHERE run_id = $1 AND id NOT IN
       (SELECT id FROM raf_checkpoints WHERE run_id = $1 ORDER BY id DESC LIMIT $2)`,
      [runId, Math.max(0, keep)],
    );
    return result.rowCount ?? 0;
  }

  async delete(runId: string): Promise<void> {
    await this.pool.query('DELETE FROM raf_checkpoints WHERE run_id = $1', [runId]);
  }

  async runs(): Promise<string[]> {
    const { rows } = await this.pool.query<{ run_id: string }>(
      'SELECT DISTINCT run_id FROM raf_checkpoints ORDER BY run_id',
    );
    return rows.map((r) => r.run_id);
  }
}
