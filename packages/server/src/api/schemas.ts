import {
  ATTACHMENT_BODY_MAX_BYTES,
  ATTACHMENT_MEDIA_TYPES,
  attachmentProblem,
  base64ByteLength,
  FINISH_REASONS,
} from '@raf/core';
import { z } from 'zod';
import { RUN_STATUSES } from '../events/run-store.js';
import { APPROVAL_REASON_MESSAGE, MAX_APPROVAL_REASON } from '../runs/approval-reason.js';
import { CLIENT_SESSION_ID, CLIENT_SESSION_ID_MESSAGE } from '../runs/tenant-sessions.js';

// The request bodies the API validates with, and the answers it gives: `/v1/openapi.json` is
// generated from these same schemas, so the document cannot drift from what is checked.

/** The schemas of the API by their OpenAPI name (`#/components/schemas/<id>`). */
export const apiSchemas = z.registry<{ id: string }>();

/** Parts one message may carry: a few files and the text around them. */
const MAX_INPUT_PARTS = 16;

/** The largest start-run body: the studio's, two attachments at the cap as base64 and the rest. */
export const START_RUN_MAX_BODY_BYTES = ATTACHMENT_BODY_MAX_BYTES;

// Bytes by value only: a URL would have the server (or the provider) fetch what the client named.
const base64Data = z.base64('expected the bytes as base64');
const mediaTypes = ATTACHMENT_MEDIA_TYPES as [string, ...string[]];

/** The checks of `raf run --attach`: an allowed media type (the enum) and the per-file cap. */
function withinCap(part: { data: string; mediaType: string }, context: z.core.$RefinementCtx): void {
  const problem = attachmentProblem(part.mediaType, base64ByteLength(part.data));
  if (problem) context.addIssue({ code: 'custom', message: problem, path: ['data'] });
}

export const contentPartSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text'), text: z.string().max(1_000_000) }),
    z
      .strictObject({
        type: z.literal('image'),
        data: base64Data,
        mediaType: z.enum(mediaTypes.filter((t) => t.startsWith('image/')) as [string, ...string[]]),
      })
      .superRefine(withinCap),
    z
      .strictObject({
        type: z.literal('file'),
        data: base64Data,
        mediaType: z.enum(mediaTypes.filter((t) => !t.startsWith('image/')) as [string, ...string[]]),
        name: z.string().min(1).max(255),
      })
      .superRefine(withinCap),
  ])
  .register(apiSchemas, { id: 'ContentPart' });

export const startRunBody = z
  .strictObject({
    input: z.union([
      z.string().min(1, 'expected the text of the message').max(1_000_000),
      z
        .array(contentPartSchema)
        .min(1, 'expected the parts of the message')
        .max(MAX_INPUT_PARTS, `at most ${MAX_INPUT_PARTS} parts a message`),
    ]),
    sessionId: z.string().regex(CLIENT_SESSION_ID, CLIENT_SESSION_ID_MESSAGE).optional(),
  })
  .register(apiSchemas, { id: 'StartRun' });

export const approvalsBody = z
  .strictObject({
    approvals: z
      .array(
        z.strictObject({
          callId: z.string().min(1),
          approved: z.boolean(),
          reason: z.string().max(MAX_APPROVAL_REASON, APPROVAL_REASON_MESSAGE).optional(),
        }),
      )
      .min(1, 'expected a list of { callId, approved, reason? }')
      .max(256),
  })
  .register(apiSchemas, { id: 'Approvals' });

export const answersBody = z
  .strictObject({
    answers: z
      .array(
        z.strictObject({
          questionId: z.string().min(1).max(300),
          action: z.enum(['accept', 'decline', 'cancel']),
          content: z.record(z.string(), z.json()).optional(),
        }),
      )
      .min(1, 'expected a list of { questionId, action, content? }')
      .max(64),
  })
  .register(apiSchemas, { id: 'Answers' });

export const startedRun = z
  .object({ runId: z.string(), sessionId: z.string() })
  .register(apiSchemas, { id: 'StartedRun' });

export const approvalRequest = z
  .object({
    type: z.literal('tool-approval-request'),
    callId: z.string(),
    name: z.string(),
    arguments: z.unknown(),
    description: z.string(),
    resolvedTarget: z.string().optional(),
    agentPath: z.array(z.string()).optional(),
  })
  .register(apiSchemas, { id: 'ApprovalRequest' });

export const inputQuestion = z
  .object({
    questionId: z.string(),
    type: z.literal('input-request'),
    callId: z.string(),
    source: z.string(),
    message: z.string(),
    mode: z.enum(['form', 'url']),
    schema: z.record(z.string(), z.unknown()).optional(),
    url: z.string().optional(),
  })
  .register(apiSchemas, { id: 'InputQuestion' });

export const runView = z
  .object({
    runId: z.string(),
    agent: z.string(),
    sessionId: z.string(),
    status: z.enum(RUN_STATUSES as [string, ...string[]]),
    finishReason: z.enum(FINISH_REASONS as [string, ...string[]]).optional(),
    lastEventId: z.number().int(),
    pendingApprovals: z.array(approvalRequest),
    pendingQuestions: z.array(inputQuestion),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .register(apiSchemas, { id: 'Run' });

export const agentView = z
  .object({
    name: z.string(),
    kind: z.enum(['agent', 'workflow']),
    description: z.string().optional(),
    file: z.string().optional(),
  })
  .register(apiSchemas, { id: 'Agent' });

export const agentList = z.object({ agents: z.array(agentView) }).register(apiSchemas, { id: 'AgentList' });

export const sessionView = z
  .object({
    id: z.string(),
    messages: z.array(z.unknown()),
    metadata: z.record(z.string(), z.unknown()),
    pendingApproval: z.unknown().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .register(apiSchemas, { id: 'Session' });

export const errorBody = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .register(apiSchemas, { id: 'Error' });
