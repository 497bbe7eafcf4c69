import {
  type AgentResponseUpdate,
  type ApprovalResponse,
  FINISH_REASONS,
  type FinishReason,
  type ToolApprovalRequestUpdate,
  type ToolResult,
  type Usage,
} from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { sessionSchemaParts } from '../sessions/session-snapshot-schema.js';

/**
 * The messages between a parent and a sub-agent worker (SPEC §7.1), version 1. Both sides check
 * every message they receive against these schemas: a malformed one ends the delegation.
 */
export const WORKER_PROTOCOL_VERSION = 1;

// Built on first use (a delegation to a worker): importing the framework builds no schema.
const schemas = onFirstUse(() => {
  const { json, toolResult, approvalRequest } = sessionSchemaParts();
  const approval = z.object({ callId: z.string(), approved: z.boolean(), reason: z.string().optional() });
  const route = z.enum(['worker-local', 'main-process-proxy', 'disabled']);
  // Checked field by field; counters a newer version adds are dropped.
  const usage = z.object({
    promptTokens: z.number(),
    completionTokens: z.number(),
    totalTokens: z.number(),
    promptCacheHitTokens: z.number().optional(),
    promptCacheMissTokens: z.number().optional(),
    reasoningTokens: z.number().optional(),
  }) satisfies z.ZodType<Usage>;
  // Every update by its type, each field checked: the parent reads them (a `tool-called` without a
  // result once threw in its message handler and ended the process). Unknown types are refused.
  const finishReason = z.enum(FINISH_REASONS as [FinishReason, ...FinishReason[]]);
  const update: z.ZodType<AgentResponseUpdate> = z.discriminatedUnion('type', [
    z.object({ type: z.literal('text-delta'), delta: z.string() }),
    z.object({ type: z.literal('reasoning-delta'), delta: z.string() }),
    z.object({ type: z.literal('tool-call-start'), callId: z.string(), name: z.string() }),
    z.object({ type: z.literal('tool-call-args'), callId: z.string(), delta: z.string() }),
    z.object({
      type: z.literal('tool-call-end'),
      callId: z.string(),
      name: z.string(),
      arguments: z.string(),
    }),
    z.object({ type: z.literal('tool-called'), callId: z.string(), name: z.string(), result: toolResult }),
    z.object({ type: z.literal('tool-progress'), callId: z.string(), name: z.string(), message: z.string() }),
    approvalRequest,
    z.object({ type: z.literal('usage'), usage }),
    z.object({
      type: z.literal('response-metadata'),
      id: z.string().optional(),
      model: z.string().optional(),
    }),
    z.object({ type: z.literal('warning'), message: z.string(), code: z.string().optional() }),
    z.object({ type: z.literal('error'), code: z.string(), message: z.string() }),
    z.object({
      type: z.literal('finish'),
      reason: finishReason,
      rawReason: z.string().optional(),
      usage: usage.optional(),
    }),
  ]) as z.ZodType<AgentResponseUpdate>;
  const v = z.literal(WORKER_PROTOCOL_VERSION);

  /**
   * One delegation as data (SPEC §7.1): the sub-agent's definition (the factory that makes an
   * agent of `options`, plain JSON) and the run's state (new work, or a paused session and the
   * answers to its requests). What a worker process gets in `start`; a durable runner can keep it
   * and send it to a child run elsewhere.
   */
  const delegation = z.object({
    agent: z.string().min(1),
    definition: z.object({ module: z.string().min(1), export: z.string().min(1), options: json }),
    /** New work; absent when resuming a paused run. */
    task: z.string().optional(),
    /** The paused run to resume (`RunState` as JSON; the worker reads it with `parseRunState`). */
    state: json.optional(),
    approvals: z.array(approval).optional(),
    /** The projection: where each of the sub-agent's tools runs; tools not named are not offered. */
    routes: z.record(z.string(), route),
  });

  /** What the parent sends. */
  const parent = z.discriminatedUnion('type', [
    delegation.extend({ v, type: z.literal('start') }),
    z.object({ v, type: z.literal('approval-response'), approvals: z.array(approval) }),
    /**
     * The one answer to a `tool-call`: its result, or the approval the call needs first (the
     * worker's run then pauses on it; the resumed call comes back with `approved`).
     */
    z.object({
      v,
      type: z.literal('tool-answer'),
      requestId: z.number().int(),
      answer: z.union([
        z.object({ result: toolResult }),
        z.object({ approval: z.object({ description: z.string(), target: z.string().optional() }) }),
      ]),
    }),
  ]);

  /** What the worker sends. */
  const worker = z.discriminatedUnion('type', [
    /** Started and loaded (a spare's preloaded modules too): a `start` is served at once. */
    z.object({ v, type: z.literal('ready') }),
    z.object({
      v,
      type: z.literal('model-update'),
      update,
    }),
    /** A proxied call: the parent decides its gate and runs it, in one round trip. */
    z.object({
      v,
      type: z.literal('tool-call'),
      requestId: z.number().int(),
      callId: z.string(),
      name: z.string(),
      arguments: json,
      /** The human approved this call when the run paused on it (the parent checks that claim). */
      approved: z.boolean().optional(),
    }),
    z.object({
      v,
      type: z.literal('approval-request'),
      requests: z.array(approvalRequest).min(1),
      /** The sub-agent's paused run (`RunState` as JSON; the parent reads it with `parseRunState`). */
      state: json,
    }),
    z.object({
      v,
      type: z.literal('done'),
      text: z.string(),
      finishReason: z.string(),
      usage: usage.optional(),
    }),
    z.object({ v, type: z.literal('error'), message: z.string() }),
  ]);
  return { delegation, parent, worker };
});

/** One delegation as data: the sub-agent's definition and the run's state (see `Delegation`). */
export const delegationSchema = () => schemas().delegation;
/** What the parent sends. */
export const parentMessageSchema = () => schemas().parent;
/** What the worker sends. */
export const workerMessageSchema = () => schemas().worker;

/** One delegation as data: what a worker runs, serializable and checked by `delegationSchema()`. */
export type Delegation = z.output<ReturnType<typeof delegationSchema>>;
export type ParentMessage = z.output<ReturnType<typeof parentMessageSchema>>;
export type StartMessage = Extract<ParentMessage, { type: 'start' }>;
type WireToolAnswer = Extract<ParentMessage, { type: 'tool-answer' }>['answer'];
/** The schema's answer with the core `ToolResult` (its `parts` are read-only there, plain JSON on the wire). */
export type ToolAnswer = { result: ToolResult } | Exclude<WireToolAnswer, { result: unknown }>;

/** A `ToolAnswer` as the message carries it: the result's `parts` as a plain array. */
export function wireToolAnswer(answer: ToolAnswer): WireToolAnswer {
  if (!('result' in answer)) return answer;
  const { parts, ...rest } = answer.result;
  return { result: parts ? { ...rest, parts: [...parts] } : rest };
}
export type WorkerMessage = z.output<ReturnType<typeof workerMessageSchema>>;
export type ToolCallMessage = Extract<WorkerMessage, { type: 'tool-call' }>;

/** Helpers for the typed message bodies both sides build. */
export type WorkerUpdate = AgentResponseUpdate;
export type { ApprovalResponse, ToolApprovalRequestUpdate, ToolResult, Usage };

/** A short account of what is wrong with a message, for the error the delegation ends with. */
export function describeMessageError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.message}`)
    .join('; ');
}
