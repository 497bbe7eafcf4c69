import type { ApprovalResponse, FinishReason, JSONValue } from '@raf/core';
import type { RunEvent } from '@raf/framework';
import { z } from 'zod';
import { APPROVAL_REASON_MESSAGE, MAX_APPROVAL_REASON } from '../runs/approval-reason.js';

/**
 * One chunk of the AI SDK's UI message stream protocol (`ai` 5/6: what `useChat` reads), as sent
 * in `data:` lines. Typed loosely here: the `ai` package is the client's, not a dependency.
 */
export type UIMessageChunk = { type: string } & Record<string, JSONValue | undefined>;

/** The header that tells `useChat` the body is a UI message stream. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'x-vercel-ai-ui-message-stream': 'v1',
};

/** What the stream's messages carry as `metadata`: the served run they are (to answer approvals). */
export interface ChatMessageMetadata {
  runId: string;
  sessionId: string;
}

const FINISH: Partial<Record<FinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  contentFilter: 'content-filter',
  awaitingApproval: 'tool-calls',
};

/** The id the answer to an `input-request` event names (`<callId>.<n>`). */
export function questionIdOf(event: RunEvent): string {
  const id = (event as { questionId?: unknown }).questionId;
  return typeof id === 'string' ? id : `${(event as { callId?: string }).callId ?? 'question'}.0`;
}

/** The question as a protocol's data carries it: what the answer needs and what to show. */
export function questionData(event: Extract<RunEvent, { type: 'input-request' }>, runId: string): JSONValue {
  return {
    runId,
    questionId: questionIdOf(event),
    callId: event.callId,
    source: event.source,
    message: event.message,
    mode: event.mode,
    ...(event.schema && { schema: event.schema as JSONValue }),
    ...(event.url !== undefined && { url: event.url }),
  };
}

/**
 * The UI message chunks of a served run's events (SPEC §11.1 → the AI SDK protocol): text and
 * reasoning as `*-start`/`*-delta`/`*-end` parts, each tool call as a `dynamic` tool part
 * (`tool-input-available`, then `tool-output-available` or `tool-output-error`), an approval as
 * `tool-approval-request` (its `approvalId` is the call id), a denied call as `tool-output-denied`,
 * a call's question as a `data-input-request` part, warnings as transient `data-warning` parts, an error as `error`, and the end as `finish` with
 * the run in `messageMetadata`. Steps (`start-step`/`finish-step`) frame each model round.
 */
export async function* toUIMessageChunks(
  events: AsyncIterable<RunEvent>,
  metadata: ChatMessageMetadata,
  options: { denied?: ReadonlySet<string>; messageId?: string } = {},
): AsyncGenerator<UIMessageChunk> {
  let part = 0;
  let open: { kind: 'text' | 'reasoning'; id: string } | undefined;
  let inStep = false;
  let afterTools = false;
  const close = function* (): Generator<UIMessageChunk> {
    if (open) yield { type: `${open.kind}-end`, id: open.id };
    open = undefined;
  };
  const step = function* (): Generator<UIMessageChunk> {
    if (afterTools) {
      yield* close();
      yield { type: 'finish-step' };
      inStep = false;
      afterTools = false;
    }
    if (!inStep) {
      yield { type: 'start-step' };
      inStep = true;
    }
  };
  yield {
    type: 'start',
    ...(options.messageId && { messageId: options.messageId }),
    messageMetadata: { ...metadata },
  };
  for await (const event of events) {
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta': {
        yield* step();
        const kind = event.type === 'text-delta' ? 'text' : 'reasoning';
        if (open?.kind !== kind) {
          yield* close();
          open = { kind, id: `${kind}-${part++}` };
          yield { type: `${kind}-start`, id: open.id };
        }
        yield { type: `${kind}-delta`, id: open.id, delta: event.delta };
        break;
      }
      case 'tool-call':
        yield* step();
        yield* close();
        yield {
          type: 'tool-input-available',
          toolCallId: event.callId,
          toolName: event.name,
          input: event.arguments,
          dynamic: true,
        };
        break;
      case 'tool-approval-request':
        yield* close();
        yield { type: 'tool-approval-request', approvalId: event.callId, toolCallId: event.callId };
        break;
      case 'tool-result':
        yield* close();
        afterTools = true;
        if (options.denied?.has(event.callId)) yield { type: 'tool-output-denied', toolCallId: event.callId };
        else if (event.result.ok)
          yield {
            type: 'tool-output-available',
            toolCallId: event.callId,
            output: (event.result.data ?? null) as JSONValue,
            dynamic: true,
          };
        else
          yield {
            type: 'tool-output-error',
            toolCallId: event.callId,
            errorText: event.result.error ?? 'the tool failed',
            dynamic: true,
          };
        break;
      case 'warning':
        yield { type: 'data-warning', data: { message: event.message }, transient: true };
        break;
      case 'input-request':
        // A running call's question (an MCP elicitation): a data part of the message, answered
        // with `POST /v1/runs/{runId}/answers` (the run in the message's metadata); the stream
        // goes on once it is.
        yield* close();
        yield {
          type: 'data-input-request',
          id: questionIdOf(event),
          data: questionData(event, metadata.runId),
        };
        break;
      case 'error':
        yield* close();
        yield { type: 'error', errorText: event.message };
        break;
      case 'finish':
        yield* close();
        if (inStep) yield { type: 'finish-step' };
        inStep = false;
        if (event.reason === 'cancelled') yield { type: 'abort', reason: 'cancelled' };
        yield {
          type: 'finish',
          finishReason: FINISH[event.reason] ?? 'other',
          messageMetadata: { ...metadata, reason: event.reason },
        };
        return;
      default:
        break;
    }
  }
}

/** A part of a UI message as `useChat` sends it back (only what the server reads is checked). */
const uiPartSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  toolCallId: z.string().optional(),
  state: z.string().optional(),
  approval: z
    .looseObject({
      id: z.string(),
      approved: z.boolean().optional(),
      // The same limit as `/v1`'s approvals: the reason reaches the model and the session.
      reason: z.string().max(MAX_APPROVAL_REASON, APPROVAL_REASON_MESSAGE).optional(),
    })
    .optional(),
});

const uiMessageSchema = z.looseObject({
  id: z.string().max(200).optional(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(uiPartSchema).max(10_000),
  metadata: z.unknown().optional(),
});

/** `useChat`'s default request body (`DefaultChatTransport`): the chat's id and its messages. */
export const chatRequestSchema = z.looseObject({
  id: z.string().min(1).max(200),
  messages: z.array(uiMessageSchema).min(1).max(10_000),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().optional(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

const metadataSchema = z.looseObject({ runId: z.string().min(1), sessionId: z.string().optional() });

/** What a chat request asks for: a new turn with the user's text, or answers to a paused run. */
export type ChatIntent =
  | { kind: 'turn'; input: string }
  | { kind: 'approvals'; runId: string; approvals: ApprovalResponse[]; messageId: string | undefined };

/**
 * Reads the last message: a user message is a new turn (its text parts); an assistant message
 * whose tool parts were answered (`approval-responded`, `addToolApprovalResponse`) answers the
 * run its `metadata.runId` names. Anything else is `undefined` (the caller answers 400).
 */
export function chatIntent(request: ChatRequest): ChatIntent | undefined {
  const last = request.messages.at(-1);
  if (!last) return undefined;
  if (last.role === 'user') {
    const input = last.parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text ?? '')
      .join('');
    return { kind: 'turn', input };
  }
  if (last.role !== 'assistant') return undefined;
  const meta = metadataSchema.safeParse(last.metadata);
  if (!meta.success) return undefined;
  const approvals: ApprovalResponse[] = [];
  for (const part of last.parts) {
    if (part.state !== 'approval-responded' || !part.toolCallId || !part.approval) continue;
    approvals.push({
      callId: part.toolCallId,
      approved: part.approval.approved === true,
      ...(part.approval.reason !== undefined && { reason: part.approval.reason }),
    });
  }
  if (approvals.length === 0) return undefined;
  return { kind: 'approvals', runId: meta.data.runId, approvals, messageId: last.id };
}
