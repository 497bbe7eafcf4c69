import { type ApprovalResponse, ConfigError } from '@raf/core';
import type { PausedState, WorkflowAnswer } from './run-spec.js';

export interface ApproveOptions {
  /**
   * The approval requests' answer: `all` / `none` answer every pending call; `approve`: the named
   * calls are approved, the rest denied; `responses`: each call's answer as given (a call left
   * out is denied). Required when the pause waits for approval, refused when it does not.
   */
  answer?: 'all' | 'none' | { approve: readonly string[] } | { responses: readonly ApprovalResponse[] };
  /**
   * A workflow's answers (SPEC §14.4), one per question of the pause, in order (`raf approve
   * --answer TEXT`). Required when the pause asks questions, refused when it does not.
   */
  answers?: readonly string[];
  reason?: string;
}

/** What an answer to a pause gave: each call's decision and each question's answer. */
export interface DurableAnswer {
  approvals: ApprovalResponse[];
  answers: { nodeId: string; prompt: string; answer: string }[];
}

const quoted = (prompts: readonly string[]) => prompts.map((p) => JSON.stringify(p)).join(', ');

/**
 * The answer to `paused` that `options` give, and the message that carries it (an agent's pause
 * takes the decisions; a workflow's the decisions and answers by node). An answer of the wrong
 * kind (texts for an approval, a decision for a question), for calls the pause does not hold or
 * naming a call twice is a `ConfigError`, found before anything is claimed.
 */
export function answerPause(
  runId: string,
  paused: PausedState,
  options: ApproveOptions,
): { message: ApprovalResponse[] | WorkflowAnswer; given: DurableAnswer } {
  const questions = paused.questions ?? [];
  const ids = paused.requests.map((r) => r.callId);
  const { answer, answers } = options;
  const asks = quoted(questions.map((q) => q.prompt));
  if (answer !== undefined && ids.length === 0)
    throw new ConfigError(
      `run ${runId} waits for an answer to ${asks}, not an approval: give --answer TEXT (raf approve ${runId} --answer "…")`,
    );
  if (answers !== undefined && questions.length === 0)
    throw new ConfigError(
      `run ${runId} waits for approval of ${paused.requests.map((r) => r.name).join(', ')}, not an answer: give --all, --none or --call ID`,
    );
  if (answer === undefined && ids.length > 0)
    throw new ConfigError(
      `run ${runId} waits for approval of ${paused.requests.map((r) => r.name).join(', ')}: give --all, --none or --call ID`,
    );
  if (questions.length > 0 && answers?.length !== questions.length)
    throw new ConfigError(
      `run ${runId} asks ${questions.length === 1 ? asks : `${questions.length} questions (${asks})`}: give ${questions.length === 1 ? 'one --answer TEXT' : `--answer TEXT ${questions.length} times, in that order`}${answers ? ` (got ${answers.length})` : ''}`,
    );
  const named =
    typeof answer !== 'object'
      ? []
      : 'approve' in answer
        ? answer.approve
        : answer.responses.map((r) => r.callId);
  // A call named twice is a mistake (a typo for another call?), and `responses` could then hold
  // two different decisions for it: refused rather than one of them silently winning.
  const twice = [...new Set(named.filter((id, i) => named.indexOf(id) !== i))];
  if (twice.length > 0)
    throw new ConfigError(
      `run ${runId}: call ${twice.join(', ')} is named more than once (give each --call ID once)`,
    );
  const unknown = named.filter((id) => !ids.includes(id));
  if (unknown.length > 0)
    throw new ConfigError(
      `run ${runId} has no pending call ${unknown.join(', ')} (pending: ${ids.join(', ')})`,
    );
  const approvals = ids.map((callId) => {
    const given =
      typeof answer === 'object' && 'responses' in answer
        ? answer.responses.find((r) => r.callId === callId)
        : undefined;
    if (given) return { ...given };
    const approved =
      answer === 'all' ||
      (typeof answer === 'object' && 'approve' in answer && answer.approve.includes(callId));
    const response: ApprovalResponse = { callId, approved };
    if (!approved && options.reason) response.reason = options.reason;
    return response;
  });
  const texts = questions.map((q, i) => ({ ...q, answer: answers?.[i] ?? '' }));
  // A chat agent's pause (no `questions`) takes the decisions as they always were: a list.
  const message: ApprovalResponse[] | WorkflowAnswer =
    paused.questions === undefined
      ? approvals
      : {
          ...(ids.length > 0 && { approvals }),
          ...(texts.length > 0 && { answers: Object.fromEntries(texts.map((t) => [t.nodeId, t.answer])) }),
        };
  return { message, given: { approvals, answers: texts } };
}
