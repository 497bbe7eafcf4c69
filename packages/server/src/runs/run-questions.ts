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
 * Answers of one tenant that may wait for their question at once: each polls the store, so a
 * flood of answers naming calls the run did make must not tie up the store (`429` beyond).
 */
const WAITS_PER_TENANT = 8;

/** How many of the run's last events are looked through for the call an answer names. */
const RECENT_EVENTS = 2000;

const waiting = new Map<string, number>();

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
  let pending = await runs.questions(record.runId);
  const missing = () => answers.filter((a) => !pending.some((q) => q.questionId === a.questionId));
  if (missing().length > 0 && (await mayBeAsked(runs, record.runId, missing()))) {
    const count = waiting.get(record.tenant) ?? 0;
    if (count >= WAITS_PER_TENANT)
      throw new HttpError(429, 'too_many_waits', 'too many answers wait for their question; try again');
    waiting.set(record.tenant, count + 1);
    try {
      const deadline = Date.now() + ASKED_WITHIN_MS;
      while (
        missing().length > 0 &&
        Date.now() < deadline &&
        (await runs.get(record.runId))?.status === 'running'
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        pending = await runs.questions(record.runId);
      }
    } finally {
      const left = (waiting.get(record.tenant) ?? 1) - 1;
      if (left === 0) waiting.delete(record.tenant);
      else waiting.set(record.tenant, left);
    }
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
    // A URL-mode question is answered out of band (the user opens the URL): its accept carries
    // no content (MCP elicitation, URL mode), and content sent anyway would reach the tool unchecked.
    if (question.mode === 'url' && a.content !== undefined)
      throw new HttpError(
        400,
        'invalid_answer',
        `answer to ${a.questionId}: 'content' is not allowed for a URL-mode question`,
      );
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

/** The call id a question id names: `<callId>.<n>` or `<callId>.<epoch>-<n>` (call ids may hold dots). */
function callIdOf(questionId: string): string | undefined {
  const dot = questionId.lastIndexOf('.');
  return dot > 0 && /^(\d+-)?\d+$/.test(questionId.slice(dot + 1)) ? questionId.slice(0, dot) : undefined;
}

/**
 * An answer is waited for only when its question may be about to be stored: the run is running
 * and the call it names is one of the run's (its event is stored before its question's event,
 * which is where a client reads the id). A forged id is a `404` at once, not 3 s of polling;
 * `false`: the run is not running, nothing will be asked.
 */
async function mayBeAsked(runs: RunStore, runId: string, answers: AnswerInput[]): Promise<boolean> {
  const record = await runs.get(runId);
  const unknown = (ids: string[]) =>
    new HttpError(404, 'unknown_question', `run ${runId} asked no question ${ids.join(', ')}`);
  if (record?.status !== 'running') return false;
  const calls = new Set<string>();
  const events = await runs.read(runId, Math.max(0, record.lastSeq - RECENT_EVENTS), RECENT_EVENTS);
  for (const { event } of events)
    if (event.type === 'tool-call' || event.type === 'input-request') calls.add(event.callId);
  const forged = answers.filter((a) => {
    const callId = callIdOf(a.questionId);
    return callId === undefined || !calls.has(callId);
  });
  if (forged.length > 0) throw unknown(forged.map((a) => a.questionId));
  return true;
}
