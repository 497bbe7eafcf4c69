import type { InputAnswer, InputRequestUpdate, JSONValue } from '@raf/core';
import { checkInputAnswer, type InputRequestHandler } from '@raf/framework';
import type { RunRecord, RunStore } from '../events/run-store.js';
import { HttpError } from '../http/http-error.js';

/** One answer of `POST /v1/runs/{id}/answers`. */
export interface AnswerInput {
  questionId: string;
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, JSONValue> | undefined;
}

/** How long an answer waits for its question to be stored (its event can be read first). */
const ASKED_WITHIN_MS = 3000;

/** A waiting call looks at the store this often without a wake-up (a lost notification). */
const POLL_MS = 1000;

/**
 * The questions a served run's tools ask (MCP elicitations, SPEC §14.4): each one is kept in the
 * run store, so any replica's `POST /v1/runs/{id}/answers` answers it, and the call waits for
 * that answer (its own timeout runs meanwhile; a call that stops waiting cancels its question).
 * A call's n-th question is `<callId>.<n>`: the executor numbers the streamed `input-request`
 * events in the same order as the handler is asked, so the event names the id the answer gives.
 * The model picks the call ids, and a run resumed after an approval is a new execution of the
 * same run: there the id is `<callId>.<epoch>-<n>` (`epoch`: the run's last event when this
 * execution started, a new number each time), so a call id used again never names an earlier
 * question, whose stored answer would reach the new question without the user being asked.
 */
export function questionAsker(runs: RunStore, runId: string, epoch = 0) {
  const asked = new Map<string, number>();
  const streamed = new Map<string, number>();
  const next = (counts: Map<string, number>, callId: string) => {
    const n = counts.get(callId) ?? 0;
    counts.set(callId, n + 1);
    return epoch === 0 ? `${callId}.${n}` : `${callId}.${epoch}-${n}`;
  };
  const handler: InputRequestHandler = async (request: InputRequestUpdate, { signal }) => {
    const questionId = next(asked, request.callId);
    await runs.ask(runId, { questionId, request });
    return waitForAnswer(runs, runId, questionId, signal);
  };
  return { handler, idOf: (callId: string) => next(streamed, callId) };
}

async function waitForAnswer(
  runs: RunStore,
  runId: string,
  questionId: string,
  signal: AbortSignal,
): Promise<InputAnswer> {
  let wake: (() => void) | undefined;
  let woken = false;
  const unwatch = runs.watch(runId, (change) => {
    if (change !== 'record') return;
    woken = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      woken = false;
      const answer = await runs.answerOf(runId, questionId);
      if (answer) return answer;
      if (signal.aborted) {
        // No longer pending: an answer now would reach nobody.
        await runs.answer(runId, questionId, { action: 'cancel' }).catch(() => false);
        throw new Error('the call stopped waiting for an answer');
      }
      if (woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    unwatch();
    signal.removeEventListener('abort', onAbort);
  }
}

/** Checks every answer against its question, then stores them (the first answer of a question wins). */
export async function answerQuestions(
  runs: RunStore,
  record: RunRecord,
  answers: AnswerInput[],
): Promise<void> {
  if (new Set(answers.map((a) => a.questionId)).size !== answers.length)
    throw new HttpError(400, 'duplicate_question', 'a question is answered twice');
  const deadline = Date.now() + ASKED_WITHIN_MS;
  let pending = await runs.questions(record.runId);
  const missing = () => answers.filter((a) => !pending.some((q) => q.questionId === a.questionId));
  while (
    missing().length > 0 &&
    Date.now() < deadline &&
    (await runs.get(record.runId))?.status === 'running'
  ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    pending = await runs.questions(record.runId);
  }
  const unknown = missing();
  if (unknown.length > 0)
    throw new HttpError(
      409,
      'not_asked',
      `run ${record.runId} does not wait for an answer to ${unknown.map((a) => a.questionId).join(', ')}`,
    );
  const checked: { questionId: string; answer: InputAnswer }[] = answers.map((a) => {
    if (a.action !== 'accept') return { questionId: a.questionId, answer: { action: a.action } };
    const question = pending.find((q) => q.questionId === a.questionId)!.request;
    const content = a.content ?? {};
    const problem = question.mode === 'form' ? checkInputAnswer(question, content) : undefined;
    if (problem)
      throw new HttpError(
        400,
        'invalid_answer',
        `answer to ${a.questionId} does not fit the question: ${problem}`,
      );
    return { questionId: a.questionId, answer: { action: 'accept', ...(a.content && { content }) } };
  });
  for (const { questionId, answer } of checked)
    if (!(await runs.answer(record.runId, questionId, answer)))
      throw new HttpError(409, 'already_answered', `question ${questionId} was answered already`);
}
