import { FINISH_REASONS, type FinishReason, type InputAnswer, type InputRequestUpdate } from '@raf/core';
import type { RunEvent } from '@raf/framework';
import { z } from 'zod';
import { RUN_STATUSES, type RunRecord, type RunStatus, type StoredQuestion } from './run-store.js';

// What a run store reads back (a row another replica wrote, or an older version) is parsed, not
// cast: a row that does not fit is an error naming the run, never an event streamed as is.

const json = z.json();

const usage = z.looseObject({
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
});

function inputRequestSchema() {
  return z.looseObject({
    type: z.literal('input-request'),
    callId: z.string(),
    source: z.string(),
    message: z.string(),
    mode: z.enum(['form', 'url']),
    schema: z.record(z.string(), json).optional(),
    url: z.string().optional(),
  });
}

/** An answer to a question (what `POST /v1/runs/{id}/answers` takes and the store keeps). */
export const inputAnswerSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('accept'), content: z.record(z.string(), json).optional() }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('cancel') }),
]);

/** A stored question's request (JSON text) and answer (JSON text or null), parsed. */
export function parseStoredQuestion(runId: string, questionId: string, request: string): StoredQuestion {
  const parsed = inputRequestSchema().safeParse(JSON.parse(request));
  if (!parsed.success) throw new Error(`run ${runId} question ${questionId}: not an input request`);
  return { questionId, request: parsed.data as InputRequestUpdate };
}

export function parseStoredAnswer(runId: string, questionId: string, answer: string): InputAnswer {
  const parsed = inputAnswerSchema.safeParse(JSON.parse(answer));
  if (!parsed.success) throw new Error(`run ${runId} question ${questionId}: the answer does not fit`);
  return parsed.data as InputAnswer;
}

export const runEventSchema = z.union([
  z.looseObject({ type: z.enum(['text-delta', 'reasoning-delta']), delta: z.string() }),
  z.looseObject({ type: z.literal('tool-call'), callId: z.string(), name: z.string(), arguments: json }),
  z.looseObject({
    type: z.literal('tool-result'),
    callId: z.string(),
    name: z.string(),
    result: z.looseObject({ ok: z.boolean() }),
  }),
  z.looseObject({
    type: z.literal('tool-progress'),
    callId: z.string(),
    name: z.string(),
    message: z.string(),
  }),
  z.looseObject({
    type: z.literal('tool-approval-request'),
    callId: z.string(),
    name: z.string(),
    arguments: json,
    description: z.string(),
    resolvedTarget: z.string().optional(),
    agentPath: z.array(z.string()).optional(),
  }),
  // A running tool's question (an MCP elicitation), with the `questionId` its answer names.
  inputRequestSchema(),
  z.looseObject({ type: z.literal('warning'), message: z.string() }),
  z.looseObject({ type: z.literal('error'), code: z.string(), message: z.string() }),
  z.looseObject({
    type: z.literal('finish'),
    reason: z.enum(FINISH_REASONS as [FinishReason, ...FinishReason[]]),
    usage: usage.optional(),
    sessionId: z.string().nullable(),
  }),
]);

/** A stored event's JSON text as a run event. */
export function parseRunEvent(text: string, runId: string, seq: number): RunEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`run ${runId} event ${seq}: not JSON: ${(error as Error).message}`);
  }
  const parsed = runEventSchema.safeParse(value);
  if (!parsed.success)
    throw new Error(`run ${runId} event ${seq}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data as RunEvent;
}

export const runRowSchema = z.object({
  run_id: z.string(),
  agent: z.string(),
  session_id: z.string(),
  tenant: z.string(),
  status: z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]),
  finish_reason: z.enum(FINISH_REASONS as [FinishReason, ...FinishReason[]]).nullable(),
  last_seq: z.coerce.number().int().min(0),
  cancel_requested: z.union([z.boolean(), z.number()]).transform((v) => v === true || v === 1),
  created_at: z.union([z.string(), z.date()]).transform((v) => (typeof v === 'string' ? v : v.toISOString())),
  updated_at: z.union([z.string(), z.date()]).transform((v) => (typeof v === 'string' ? v : v.toISOString())),
});

/** A stored row (SQLite or Postgres) as a record. */
export function parseRunRow(row: unknown): RunRecord {
  const parsed = runRowSchema.safeParse(row);
  if (!parsed.success)
    throw new Error(`a stored run does not fit: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const r = parsed.data;
  return {
    runId: r.run_id,
    agent: r.agent,
    sessionId: r.session_id,
    tenant: r.tenant,
    status: r.status,
    ...(r.finish_reason !== null && { finishReason: r.finish_reason }),
    lastSeq: r.last_seq,
    cancelRequested: r.cancel_requested,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
