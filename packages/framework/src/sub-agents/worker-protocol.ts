import {
  type AgentResponseUpdate,
  type ApprovalResponse,
  FINISH_REASONS,
  type FinishReason,
  type SessionSnapshot,
  type ToolApprovalRequestUpdate,
  type ToolResult,
  type Usage,
} from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { sessionSchemaParts, sessionSnapshotSchema } from '../sessions/session-snapshot-schema.js';

/**
 * The messages between a parent and a sub-agent worker (SPEC §7.1), version 1. Both sides check
 * every message they receive against these schemas: a malformed one ends the delegation.
 */
export const WORKER_PROTOCOL_VERSION = 1;

// Built on first use (a delegation to a worker): importing the framework builds no schema.
const schemas = onFirstUse(() => {
  const { json, toolResult, approvalRequest } = sessionSchemaParts();
  const snapshot = sessionSnapshotSchema() as unknown as z.ZodType<SessionSnapshot>;
  const approval = z.object({ callId: z.string(), approved: z.boolean(), reason: z.string().optional() });
  const route = z.enum(['worker-local', 'main-process-proxy', 'disabled']);
  // Checked for their shape; extra fields a newer version adds pass through.
  const usage = z.looseObject({
    promptTokens: z.number(),
    completionTokens: z.number(),
    totalTokens: z.number(),
  }) as unknown as z.ZodType<Usage>;
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

  /** What the parent sends. */
  const parent = z.discriminatedUnion('type', [
    z.object({
      v,
      type: z.literal('start'),
      /** How to build the sub-agent. */
      factory: z.object({ module: z.string().min(1), export: z.string().min(1), options: json }),
      agent: z.string(),
      /** New work; absent when resuming a paused `session`. */
      task: z.string().optional(),
      session: snapshot.optional(),
      approvals: z.array(approval).optional(),
      /** The projection: where each of the sub-agent's tools runs; tools not named are not offered. */
      routes: z.record(z.string(), route),
      policy: z.object({
        workspaceRoots: z.array(z.string()),
        allowShell: z.boolean(),
        readonly: z.boolean(),
      }),
    }),
    z.object({ v, type: z.literal('approval-response'), approvals: z.array(approval) }),
    z.object({
      v,
      type: z.literal('tool-proxy-response'),
      requestId: z.number().int(),
      result: toolResult.optional(),
      check: z
        .object({ gated: z.boolean(), target: z.string().optional(), description: z.string() })
        .optional(),
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
    z.object({
      v,
      type: z.literal('tool-proxy-request'),
      requestId: z.number().int(),
      /** `check`: does the call need approval (and its target); `execute`: run it. */
      op: z.enum(['check', 'execute']),
      callId: z.string(),
      name: z.string(),
      arguments: json,
      approved: z.boolean().optional(),
    }),
    z.object({
      v,
      type: z.literal('approval-request'),
      requests: z.array(approvalRequest).min(1),
      session: snapshot,
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
  return { parent, worker };
});

/** What the parent sends. */
export const parentMessageSchema = () => schemas().parent;
/** What the worker sends. */
export const workerMessageSchema = () => schemas().worker;

export type ParentMessage = z.output<ReturnType<typeof parentMessageSchema>>;
export type StartMessage = Extract<ParentMessage, { type: 'start' }>;
export type WorkerMessage = z.output<ReturnType<typeof workerMessageSchema>>;

/** Helpers for the typed message bodies both sides build. */
export type ProxyCheck = { gated: boolean; target?: string; description: string };
export type WorkerUpdate = AgentResponseUpdate;
export type { ApprovalResponse, ToolApprovalRequestUpdate, ToolResult, Usage };

/** A short account of what is wrong with a message, for the error the delegation ends with. */
export function describeMessageError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.message}`)
    .join('; ');
}
