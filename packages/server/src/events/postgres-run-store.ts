import type { InputAnswer } from '@raf/core';
import { ConfigError, redactStoreUrl } from '@raf/core';
import type pg from 'pg';
import { HttpError } from '../http/http-error.js';
import { LocalWatchers } from './local-watchers.js';
import { parseRunEvent, parseRunRow, parseStoredAnswer, parseStoredQuestion } from './run-event-schema.js';
import type {
  RunChange,
  RunPatch,
  RunRecord,
  RunStore,
  SequencedEvent,
  StoredQuestion,
} from './run-store.js';

const CHANNEL = 'raf_serve_run';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS raf_serve_runs (
  run_id TEXT PRIMARY KEY, agent TEXT NOT NULL, session_id TEXT NOT NULL, tenant TEXT NOT NULL,
  status TEXT NOT NULL, finish_reason TEXT, last_seq BIGINT NOT NULL, cancel_requested BOOLEAN NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS raf_serve_events (
  run_id TEXT NOT NULL, seq BIGINT NOT NULL, event TEXT NOT NULL, PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS raf_serve_questions (
  run_id TEXT NOT NULL, question_id TEXT NOT NULL, asked_at BIGSERIAL, request TEXT NOT NULL, answer TEXT,
  PRIMARY KEY (run_id, question_id));
CREATE INDEX IF NOT EXISTS raf_serve_runs_session ON raf_serve_runs (tenant, session_id, created_at);
CREATE TABLE IF NOT EXISTS raf_serve_a2a_tasks (
  tenant TEXT NOT NULL, task_id TEXT NOT NULL, task TEXT NOT NULL, PRIMARY KEY (tenant, task_id));
`;

/** A fixed key for the advisory lock the schema is created under (two replicas starting at once). */
const SCHEMA_LOCK = 7_311_031_731;

/**
 * Runs and events in the Postgres database of the state store, so every replica on it serves
 * every run. A write notifies `raf_serve_run` with the run id in its transaction (delivered on
 * commit); one `LISTEN` connection per replica wakes that replica's readers at once.
 */
export class PostgresRunStore implements RunStore {
  private readonly watchers = new LocalWatchers();
  private listener: Promise<pg.Client | undefined> | undefined;
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly config: pg.ClientConfig,
    private readonly Client: typeof pg.Client,
  ) {}

  static async open(url: string, options: { signal?: AbortSignal } = {}): Promise<PostgresRunStore> {
    options.signal?.throwIfAborted();
    let pgModule: typeof pg;
    try {
      pgModule = ((await import('pg')) as unknown as { default: typeof pg }).default;
    } catch (error) {
      throw new ConfigError('raf serve on a postgres:// store needs pg (installed with @raf/postgres)', {
        cause: error,
      });
    }
    const config: pg.ClientConfig = { connectionString: url };
    const pool = new pgModule.Pool({ ...config, max: 8 });
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
        await client.query(SCHEMA);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK]).catch(() => undefined);
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new ConfigError(`cannot open the run store ${redactStoreUrl(url)}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return new PostgresRunStore(pool, config, pgModule.Client);
  }

  async create(record: RunRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO raf_serve_runs (run_id, agent, session_id, tenant, status, finish_reason, last_seq, cancel_requested, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        record.runId,
        record.agent,
        record.sessionId,
        record.tenant,
        record.status,
        record.finishReason ?? null,
        record.lastSeq,
        record.cancelRequested,
        record.createdAt,
        record.updatedAt,
      ],
    );
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.pool.query('SELECT * FROM raf_serve_runs WHERE run_id = $1', [runId]);
    return rows[0] === undefined ? undefined : parseRunRow(rows[0]);
  }

  async update(runId: string, patch: RunPatch): Promise<RunRecord | undefined> {
    const sets: string[] = [];
    const values: unknown[] = [runId, new Date().toISOString()];
    if (patch.status !== undefined) values.push(patch.status) && sets.push(`status = $${values.length}`);
    if (patch.finishReason !== undefined)
      values.push(patch.finishReason) && sets.push(`finish_reason = $${values.length}`);
    if (patch.cancelRequested !== undefined)
      values.push(patch.cancelRequested) && sets.push(`cancel_requested = $${values.length}`);
    const { rows } = await this.pool.query(
      `WITH updated AS (UPDATE raf_serve_runs SET ${[...sets, 'updated_at = $2'].join(', ')} WHERE run_id = $1 RETURNING *)
       SELECT updated.*, pg_notify('${CHANNEL}', 'record:' || updated.run_id) FROM updated`,
      values,
    );
    this.watchers.wake(runId, 'record');
    if (rows[0] === undefined) return undefined;
    const { pg_notify: _, ...row } = rows[0] as Record<string, unknown>;
    return parseRunRow(row);
  }

  async append(runId: string, events: readonly SequencedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const first = events[0]!.seq;
    events.forEach((e, i) => {
      if (e.seq !== first + i) throw new HttpError(500, 'sequence_gap', `run ${runId}: events out of order`);
    });
    const last = first + events.length - 1;
    // One statement: the run's last_seq moves only from first - 1 (one writer per run, in order),
    // the events go in, and the notification is sent on commit.
    const { rows } = await this.pool.query(
      `WITH bumped AS (
         UPDATE raf_serve_runs SET last_seq = $3, updated_at = $5 WHERE run_id = $1 AND last_seq = $2 - 1 RETURNING run_id),
       inserted AS (
         INSERT INTO raf_serve_events (run_id, seq, event)
         SELECT bumped.run_id, $2 + e.ord - 1, e.event FROM bumped, unnest($4::text[]) WITH ORDINALITY AS e(event, ord)
         RETURNING 1)
       SELECT (SELECT count(*) FROM inserted) AS n, pg_notify('${CHANNEL}', 'events:' || $1)`,
      [runId, first, last, events.map((e) => JSON.stringify(e.event)), new Date().toISOString()],
    );
    if (Number((rows[0] as { n: unknown } | undefined)?.n ?? 0) !== events.length)
      throw new HttpError(
        500,
        'sequence_gap',
        `run ${runId}: event ${first} does not follow the stored events`,
      );
    this.watchers.wake(runId, 'events');
  }

  async read(runId: string, after: number, limit: number): Promise<SequencedEvent[]> {
    const { rows } = await this.pool.query(
      'SELECT seq, event FROM raf_serve_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [runId, after, limit],
    );
    return (rows as { seq: string | number; event: string }[]).map((row) => ({
      seq: Number(row.seq),
      event: parseRunEvent(row.event, runId, Number(row.seq)),
    }));
  }

  async ask(runId: string, question: StoredQuestion): Promise<void> {
    await this.pool.query(
      `WITH asked AS (INSERT INTO raf_serve_questions (run_id, question_id, request) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING run_id)
       SELECT pg_notify('${CHANNEL}', 'record:' || $1)`,
      [runId, question.questionId, JSON.stringify(question.request)],
    );
    this.watchers.wake(runId, 'record');
  }

  async questions(runId: string): Promise<StoredQuestion[]> {
    const { rows } = await this.pool.query(
      'SELECT question_id, request FROM raf_serve_questions WHERE run_id = $1 AND answer IS NULL ORDER BY asked_at',
      [runId],
    );
    return (rows as { question_id: string; request: string }[]).map((row) =>
      parseStoredQuestion(runId, row.question_id, row.request),
    );
  }

  async answer(runId: string, questionId: string, answer: InputAnswer): Promise<boolean> {
    // The answer and the notification in one statement: the replica running the run wakes on commit.
    const { rows } = await this.pool.query(
      `WITH answered AS (UPDATE raf_serve_questions SET answer = $3 WHERE run_id = $1 AND question_id = $2 AND answer IS NULL RETURNING run_id)
       SELECT (SELECT count(*) FROM answered) AS n, pg_notify('${CHANNEL}', 'record:' || $1)`,
      [runId, questionId, JSON.stringify(answer)],
    );
    this.watchers.wake(runId, 'record');
    return Number((rows[0] as { n: unknown } | undefined)?.n ?? 0) === 1;
  }

  async answerOf(runId: string, questionId: string): Promise<InputAnswer | undefined> {
    const { rows } = await this.pool.query(
      'SELECT answer FROM raf_serve_questions WHERE run_id = $1 AND question_id = $2',
      [runId, questionId],
    );
    const answer = (rows[0] as { answer: string | null } | undefined)?.answer;
    return answer == null ? undefined : parseStoredAnswer(runId, questionId, answer);
  }

  async latestRun(tenant: string, sessionId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.pool.query(
      'SELECT * FROM raf_serve_runs WHERE tenant = $1 AND session_id = $2 ORDER BY created_at DESC LIMIT 1',
      [tenant, sessionId],
    );
    return rows[0] === undefined ? undefined : parseRunRow(rows[0]);
  }

  async saveTask(tenant: string, taskId: string, task: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO raf_serve_a2a_tasks (tenant, task_id, task) VALUES ($1, $2, $3)
       ON CONFLICT (tenant, task_id) DO UPDATE SET task = excluded.task`,
      [tenant, taskId, task],
    );
  }

  async loadTask(tenant: string, taskId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query(
      'SELECT task FROM raf_serve_a2a_tasks WHERE tenant = $1 AND task_id = $2',
      [tenant, taskId],
    );
    return (rows[0] as { task: string } | undefined)?.task;
  }

  watch(runId: string, listener: (change: RunChange) => void): () => void {
    void this.listen();
    return this.watchers.watch(runId, listener);
  }

  /** The replica's one `LISTEN` connection, opened on the first watch; lost, readers still poll. */
  private listen(): Promise<pg.Client | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    this.listener ??= (async () => {
      const client = new this.Client(this.config);
      client.on('notification', (message) => {
        // `events:<run>` or `record:<run>`: the change and the run, from any replica (this one too).
        const at = message.payload?.indexOf(':') ?? -1;
        if (at <= 0) return;
        const change = message.payload!.slice(0, at);
        if (change === 'events' || change === 'record')
          this.watchers.wake(message.payload!.slice(at + 1), change);
      });
      client.on('error', () => {
        this.listener = undefined;
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANNEL}`);
        return client;
      } catch {
        this.listener = undefined;
        await client.end().catch(() => undefined);
        return undefined;
      }
    })();
    return this.listener;
  }

  async close(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.listener = undefined;
    const client = await listener?.catch(() => undefined);
    await client?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}
