import type { InputAnswer } from '@raf/core';
import type BetterSqlite3 from 'better-sqlite3';
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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS raf_serve_runs (
  run_id TEXT PRIMARY KEY, agent TEXT NOT NULL, session_id TEXT NOT NULL, tenant TEXT NOT NULL,
  status TEXT NOT NULL, finish_reason TEXT, last_seq INTEGER NOT NULL, cancel_requested INTEGER NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS raf_serve_events (
  run_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS raf_serve_questions (
  run_id TEXT NOT NULL, question_id TEXT NOT NULL, ord INTEGER NOT NULL, request TEXT NOT NULL, answer TEXT,
  PRIMARY KEY (run_id, question_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS raf_serve_runs_session ON raf_serve_runs (tenant, session_id, created_at);
CREATE TABLE IF NOT EXISTS raf_serve_a2a_tasks (
  tenant TEXT NOT NULL, task_id TEXT NOT NULL, task TEXT NOT NULL, PRIMARY KEY (tenant, task_id)) WITHOUT ROWID;
`;

/** Other processes' commits are looked for this often (SQLite has no notifications). */
const POLL_MS = 100;

/**
 * Runs and events in the SQLite file of the state store (`sqlite:PATH`), on the store's own
 * connection. Replicas on one machine share the file; they see each other's writes through
 * `PRAGMA data_version`, polled while someone watches.
 */
export class SqliteRunStore implements RunStore {
  private readonly watchers = new LocalWatchers();
  private poller: NodeJS.Timeout | undefined;
  private version = -1;
  private readonly statements;

  constructor(private readonly db: BetterSqlite3.Database) {
    db.exec(SCHEMA);
    this.statements = {
      insert: db.prepare(
        `INSERT INTO raf_serve_runs (run_id, agent, session_id, tenant, status, finish_reason, last_seq, cancel_requested, created_at, updated_at)
         VALUES (@run_id, @agent, @session_id, @tenant, @status, @finish_reason, @last_seq, @cancel_requested, @created_at, @updated_at)`,
      ),
      get: db.prepare('SELECT * FROM raf_serve_runs WHERE run_id = ?'),
      lastSeq: db.prepare('SELECT last_seq FROM raf_serve_runs WHERE run_id = ?'),
      event: db.prepare('INSERT INTO raf_serve_events (run_id, seq, event) VALUES (?, ?, ?)'),
      bump: db.prepare('UPDATE raf_serve_runs SET last_seq = ?, updated_at = ? WHERE run_id = ?'),
      read: db.prepare(
        'SELECT seq, event FROM raf_serve_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?',
      ),
    };
  }

  async create(record: RunRecord): Promise<void> {
    this.statements.insert.run(toRow(record));
    this.watchers.wake(record.runId, 'record');
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const row = this.statements.get.get(runId);
    return row === undefined ? undefined : parseRunRow(row);
  }

  async update(runId: string, patch: RunPatch): Promise<RunRecord | undefined> {
    const updated = this.db
      .transaction(() => {
        const row = this.statements.get.get(runId);
        if (row === undefined) return undefined;
        const next = { ...parseRunRow(row), ...patch, updatedAt: new Date().toISOString() };
        this.db
          .prepare(
            'UPDATE raf_serve_runs SET status = @status, finish_reason = @finish_reason, cancel_requested = @cancel_requested, updated_at = @updated_at WHERE run_id = @run_id',
          )
          .run(toRow(next));
        return next;
      })
      .immediate();
    this.watchers.wake(runId, 'record');
    return updated;
  }

  async append(runId: string, events: readonly SequencedEvent[]): Promise<void> {
    if (events.length === 0) return;
    this.db
      .transaction(() => {
        const row = this.statements.lastSeq.get(runId) as { last_seq: number } | undefined;
        if (!row) throw new HttpError(404, 'not_found', `run ${runId} not found`);
        let last = Number(row.last_seq);
        for (const { seq, event } of events) {
          if (seq !== last + 1)
            throw new HttpError(500, 'sequence_gap', `run ${runId}: event ${seq} after ${last}`);
          this.statements.event.run(runId, seq, JSON.stringify(event));
          last = seq;
        }
        this.statements.bump.run(last, new Date().toISOString(), runId);
      })
      .immediate();
    this.watchers.wake(runId, 'events');
  }

  async read(runId: string, after: number, limit: number): Promise<SequencedEvent[]> {
    const rows = this.statements.read.all(runId, after, limit) as { seq: number; event: string }[];
    return rows.map((row) => ({
      seq: Number(row.seq),
      event: parseRunEvent(row.event, runId, Number(row.seq)),
    }));
  }

  async ask(runId: string, question: StoredQuestion): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO raf_serve_questions (run_id, question_id, ord, request, answer)
         VALUES (?, ?, (SELECT count(*) FROM raf_serve_questions WHERE run_id = ?), ?, NULL) ON CONFLICT DO NOTHING`,
      )
      .run(runId, question.questionId, runId, JSON.stringify(question.request));
    this.watchers.wake(runId, 'record');
  }

  async questions(runId: string): Promise<StoredQuestion[]> {
    const rows = this.db
      .prepare(
        'SELECT question_id, request FROM raf_serve_questions WHERE run_id = ? AND answer IS NULL ORDER BY ord',
      )
      .all(runId) as { question_id: string; request: string }[];
    return rows.map((row) => parseStoredQuestion(runId, row.question_id, row.request));
  }

  async answer(runId: string, questionId: string, answer: InputAnswer): Promise<boolean> {
    const { changes } = this.db
      .prepare(
        'UPDATE raf_serve_questions SET answer = ? WHERE run_id = ? AND question_id = ? AND answer IS NULL',
      )
      .run(JSON.stringify(answer), runId, questionId);
    this.watchers.wake(runId, 'record');
    return changes === 1;
  }

  async answerOf(runId: string, questionId: string): Promise<InputAnswer | undefined> {
    const row = this.db
      .prepare('SELECT answer FROM raf_serve_questions WHERE run_id = ? AND question_id = ?')
      .get(runId, questionId) as { answer: string | null } | undefined;
    return row?.answer == null ? undefined : parseStoredAnswer(runId, questionId, row.answer);
  }

  async latestRun(tenant: string, sessionId: string): Promise<RunRecord | undefined> {
    const row = this.db
      .prepare(
        'SELECT * FROM raf_serve_runs WHERE tenant = ? AND session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
      )
      .get(tenant, sessionId);
    return row === undefined ? undefined : parseRunRow(row);
  }

  async saveTask(tenant: string, taskId: string, task: string): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO raf_serve_a2a_tasks (tenant, task_id, task) VALUES (?, ?, ?) ON CONFLICT (tenant, task_id) DO UPDATE SET task = excluded.task',
      )
      .run(tenant, taskId, task);
  }

  async loadTask(tenant: string, taskId: string): Promise<string | undefined> {
    const row = this.db
      .prepare('SELECT task FROM raf_serve_a2a_tasks WHERE tenant = ? AND task_id = ?')
      .get(tenant, taskId) as { task: string } | undefined;
    return row?.task;
  }

  watch(runId: string, listener: (change: RunChange) => void): () => void {
    const unwatch = this.watchers.watch(runId, listener);
    this.poller ??= setInterval(() => this.poll(), POLL_MS);
    this.poller.unref();
    return () => {
      unwatch();
      if (this.watchers.watched().length === 0 && this.poller) {
        clearInterval(this.poller);
        this.poller = undefined;
      }
    };
  }

  /** Another connection committed: every watcher looks again (a cheap query then, not per run). */
  private poll(): void {
    let version: number;
    try {
      version = Number(this.db.pragma('data_version', { simple: true }));
    } catch {
      return;
    }
    if (version === this.version) return;
    this.version = version;
    // Which run changed, and how, SQLite does not say: every watcher looks at both.
    for (const runId of this.watchers.watched()) {
      this.watchers.wake(runId, 'events');
      this.watchers.wake(runId, 'record');
    }
  }

  async close(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
  }
}

function toRow(record: RunRecord) {
  return {
    run_id: record.runId,
    agent: record.agent,
    session_id: record.sessionId,
    tenant: record.tenant,
    status: record.status,
    finish_reason: record.finishReason ?? null,
    last_seq: record.lastSeq,
    cancel_requested: record.cancelRequested ? 1 : 0,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
