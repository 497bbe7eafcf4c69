import type { InputAnswer } from '@raf/core';
import { HttpError } from '../http/http-error.js';
import { LocalWatchers } from './local-watchers.js';
import type {
  RunChange,
  RunPatch,
  RunRecord,
  RunStore,
  SequencedEvent,
  StoredQuestion,
} from './run-store.js';

/**
 * Runs and events in this process only (`memory:` and `file:` stores; one replica, lost on exit).
 * A long-lived server keeps the last `maxRuns` (default 10,000): past that, the oldest stopped
 * runs are forgotten (their sessions stay in the store).
 */
export class InMemoryRunStore implements RunStore {
  private readonly runs = new Map<
    string,
    {
      record: RunRecord;
      events: SequencedEvent[];
      questions?: Map<string, { question: StoredQuestion; answer?: InputAnswer }>;
    }
  >();
  private readonly watchers = new LocalWatchers();

  constructor(private readonly maxRuns = 10_000) {}

  async create(record: RunRecord): Promise<void> {
    if (this.runs.has(record.runId)) throw new HttpError(409, 'run_exists', `run ${record.runId} exists`);
    this.runs.set(record.runId, { record: { ...record }, events: [] });
    // A Map iterates in insertion order: the oldest first.
    for (const [id, run] of this.runs) {
      if (this.runs.size <= this.maxRuns) break;
      if (id !== record.runId && run.record.status !== 'running' && run.record.status !== 'paused')
        this.runs.delete(id);
    }
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const run = this.runs.get(runId);
    return run && { ...run.record };
  }

  async update(runId: string, patch: RunPatch): Promise<RunRecord | undefined> {
    const run = this.runs.get(runId);
    if (!run) return undefined;
    run.record = { ...run.record, ...patch, updatedAt: new Date().toISOString() };
    this.watchers.wake(runId, 'record');
    return { ...run.record };
  }

  async append(runId: string, events: readonly SequencedEvent[]): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) throw new HttpError(404, 'not_found', `run ${runId} not found`);
    for (const event of events) {
      if (event.seq !== run.record.lastSeq + 1)
        throw new HttpError(
          500,
          'sequence_gap',
          `run ${runId}: event ${event.seq} after ${run.record.lastSeq}`,
        );
      run.events.push(event);
      run.record.lastSeq = event.seq;
    }
    this.watchers.wake(runId, 'events');
  }

  async read(runId: string, after: number, limit: number): Promise<SequencedEvent[]> {
    const events = this.runs.get(runId)?.events ?? [];
    // Sequence numbers are 1, 2, …: the event after `after` is at index `after`.
    return events.slice(Math.max(0, after), Math.max(0, after) + limit);
  }

  watch(runId: string, listener: (change: RunChange) => void): () => void {
    return this.watchers.watch(runId, listener);
  }

  async ask(runId: string, question: StoredQuestion): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) throw new HttpError(404, 'not_found', `run ${runId} not found`);
    run.questions ??= new Map();
    if (!run.questions.has(question.questionId)) run.questions.set(question.questionId, { question });
    this.watchers.wake(runId, 'record');
  }

  async questions(runId: string): Promise<StoredQuestion[]> {
    const all = this.runs.get(runId)?.questions?.values() ?? [];
    return [...all].filter((q) => q.answer === undefined).map((q) => q.question);
  }

  async answer(runId: string, questionId: string, answer: InputAnswer): Promise<boolean> {
    const entry = this.runs.get(runId)?.questions?.get(questionId);
    if (!entry || entry.answer !== undefined) return false;
    entry.answer = answer;
    this.watchers.wake(runId, 'record');
    return true;
  }

  async answerOf(runId: string, questionId: string): Promise<InputAnswer | undefined> {
    return this.runs.get(runId)?.questions?.get(questionId)?.answer;
  }

  private readonly tasks = new Map<string, string>();

  async latestRun(tenant: string, sessionId: string): Promise<RunRecord | undefined> {
    let latest: RunRecord | undefined;
    // Insertion order is creation order: the last match is the newest.
    for (const { record } of this.runs.values())
      if (record.tenant === tenant && record.sessionId === sessionId) latest = record;
    return latest && { ...latest };
  }

  async saveTask(tenant: string, taskId: string, task: string): Promise<void> {
    const key = JSON.stringify([tenant, taskId]);
    // Newest last: past `maxRuns` tasks the oldest are forgotten.
    this.tasks.delete(key);
    this.tasks.set(key, task);
    if (this.tasks.size > this.maxRuns) this.tasks.delete(this.tasks.keys().next().value!);
  }

  async loadTask(tenant: string, taskId: string): Promise<string | undefined> {
    return this.tasks.get(JSON.stringify([tenant, taskId]));
  }

  async close(): Promise<void> {}
}
