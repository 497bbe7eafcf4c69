import { describe, expect, it } from 'vitest';
import { InMemoryRunStore } from '../events/memory-run-store.js';
import type { RunRecord } from '../events/run-store.js';
import { HttpError } from '../http/http-error.js';
import { answerQuestions } from './run-questions.js';

// The answer path of `POST /v1/runs/{id}/answers` against a real (in-memory) run store: what an
// answer may carry, and how long an answer naming a question not (yet) stored may hold a request.
async function runningRun(runId: string, tenant = 't1') {
  const runs = new InMemoryRunStore();
  const now = new Date().toISOString();
  const record: RunRecord = {
    runId,
    agent: 'asker',
    sessionId: 's1',
    tenant,
    status: 'running',
    lastSeq: 0,
    cancelRequested: false,
    createdAt: now,
    updatedAt: now,
  };
  await runs.create(record);
  await runs.append(runId, [
    { seq: 1, event: { type: 'tool-call', callId: 'c1', name: 'login', arguments: {} } },
  ]);
  return { runs, record: { ...record, lastSeq: 1 } };
}

const failure = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
};

describe('answers to questions', () => {
  it('refuses content on an accept of a URL-mode question, and stores a bare accept', async () => {
    const { runs, record } = await runningRun('r-url');
    const request = {
      type: 'input-request',
      callId: 'c1',
      source: 'mcp:tracker',
      message: 'Sign in',
      mode: 'url',
      url: 'https://auth.example.com/x',
    } as const;
    await runs.ask('r-url', { questionId: 'c1.0', request });
    const refused = await failure(
      answerQuestions(runs, record, [{ questionId: 'c1.0', action: 'accept', content: { token: 'x' } }]),
    );
    expect(refused.status).toBe(400);
    expect(refused.reason).toBe('invalid_answer');
    expect(refused.message).toContain("'content'");
    // The question still waits, and a bare accept answers it.
    expect(await runs.answerOf('r-url', 'c1.0')).toBeUndefined();
    await answerQuestions(runs, record, [{ questionId: 'c1.0', action: 'accept' }]);
    expect(await runs.answerOf('r-url', 'c1.0')).toEqual({ action: 'accept' });
  });

  it('answers 50 forged question ids at once with a 404, without waiting for them', async () => {
    const { runs, record } = await runningRun('r-forged');
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        failure(answerQuestions(runs, record, [{ questionId: `forged${i}.0`, action: 'decline' }])),
      ),
    );
    for (const error of results) {
      expect(error.status).toBe(404);
      expect(error.reason).toBe('unknown_question');
    }
    // Each would have polled for 3 s before; generous under load, far below one wait.
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('waits for a question of a call of the run, and caps the waits of a tenant', async () => {
    const { runs, record } = await runningRun('r-wait', 't-cap');
    const request = {
      type: 'input-request',
      callId: 'c1',
      source: 'tool:x',
      message: 'Go?',
      mode: 'url',
    } as const;
    // The question's event was read first: the answer waits until it is stored.
    const waiting = Array.from({ length: 8 }, (_, i) =>
      answerQuestions(runs, record, [{ questionId: `c1.${i}`, action: 'decline' }]),
    );
    const over = await failure(answerQuestions(runs, record, [{ questionId: 'c1.8', action: 'decline' }]));
    expect(over.status).toBe(429);
    for (let i = 0; i < 8; i++) await runs.ask('r-wait', { questionId: `c1.${i}`, request });
    await Promise.all(waiting);
    expect(await runs.answerOf('r-wait', 'c1.7')).toEqual({ action: 'decline' });
    // The waits are over: the tenant may wait again.
    const again = answerQuestions(runs, record, [{ questionId: 'c1.8', action: 'decline' }]);
    await runs.ask('r-wait', { questionId: 'c1.8', request });
    await again;
  });
});
