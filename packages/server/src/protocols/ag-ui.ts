import type { BaseEvent, Interrupt, RunAgentInput } from '@ag-ui/core';
import type { ApprovalResponse } from '@raf/core';
import type { RunEvent } from '@raf/framework';
import { APPROVAL_REASON_MESSAGE, MAX_APPROVAL_REASON } from '../runs/approval-reason.js';
import { questionData } from './ui-message-stream.js';

/** The ids an AG-UI stream is about: the client's thread and run, and the served run behind them. */
export interface AgUiRunIds {
  threadId: string;
  runId: string;
  /** The `raf serve` run (in `RUN_STARTED.metadata`, and in each interrupt's id). */
  servedRunId: string;
}

/**
 * An approval interrupt's id: the served run and the call, so a resume entry alone names both
 * (`<runId>/<callId>`; a run id has no `/`, a sub-agent's call id may).
 */
export function interruptId(servedRunId: string, callId: string): string {
  return `${servedRunId}/${callId}`;
}

function parseInterruptId(id: string): { runId: string; callId: string } | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { runId: id.slice(0, slash), callId: id.slice(slash + 1) };
}

/**
 * AG-UI events of a served run's events (SPEC §11.1 → AG-UI 1.0): `RUN_STARTED`; text as
 * `TEXT_MESSAGE_START/CONTENT/END`; each tool call as `TOOL_CALL_START/ARGS/END` and its
 * `TOOL_CALL_RESULT`; approvals as interrupts of `RUN_FINISHED` (`outcome: interrupt`, reason
 * `tool_approval`, one per call); a call's question (an MCP elicitation) as a `CUSTOM` event
 * `raf.input-request`, answered through the API; a cancelled run as `outcome: cancelled`; an error as `RUN_ERROR`.
 */
export async function* toAgUiEvents(
  events: AsyncIterable<RunEvent>,
  ids: AgUiRunIds,
): AsyncGenerator<BaseEvent> {
  const { threadId, runId, servedRunId } = ids;
  yield { type: 'RUN_STARTED', threadId, runId, metadata: { rafRunId: servedRunId } } as BaseEvent;
  let message: string | undefined;
  let count = 0;
  let failure: { code: string; message: string } | undefined;
  const interrupts: Interrupt[] = [];
  const closeMessage = function* (): Generator<BaseEvent> {
    if (message) yield { type: 'TEXT_MESSAGE_END', messageId: message } as BaseEvent;
    message = undefined;
  };
  for await (const event of events) {
    switch (event.type) {
      case 'text-delta':
        if (!message) {
          message = `${servedRunId}-m${count++}`;
          yield { type: 'TEXT_MESSAGE_START', messageId: message, role: 'assistant' } as BaseEvent;
        }
        yield { type: 'TEXT_MESSAGE_CONTENT', messageId: message, delta: event.delta } as BaseEvent;
        break;
      case 'tool-call':
        yield* closeMessage();
        yield { type: 'TOOL_CALL_START', toolCallId: event.callId, toolCallName: event.name } as BaseEvent;
        yield {
          type: 'TOOL_CALL_ARGS',
          toolCallId: event.callId,
          delta: JSON.stringify(event.arguments),
        } as BaseEvent;
        yield { type: 'TOOL_CALL_END', toolCallId: event.callId } as BaseEvent;
        break;
      case 'tool-result':
        yield* closeMessage();
        yield {
          type: 'TOOL_CALL_RESULT',
          messageId: `${servedRunId}-r-${event.callId}`,
          toolCallId: event.callId,
          role: 'tool',
          content: JSON.stringify(
            event.result.ok ? (event.result.data ?? null) : { error: event.result.error },
          ),
        } as BaseEvent;
        break;
      case 'tool-approval-request':
        interrupts.push({
          id: interruptId(servedRunId, event.callId),
          reason: 'tool_approval',
          message: event.description,
          toolCallId: event.callId,
          responseSchema: {
            type: 'object',
            properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
            required: ['approved'],
          },
          metadata: {
            name: event.name,
            arguments: event.arguments,
            ...(event.resolvedTarget !== undefined && { resolvedTarget: event.resolvedTarget }),
            ...(event.agentPath && { agentPath: event.agentPath }),
          },
        } as Interrupt);
        break;
      case 'input-request':
        // A running call's question: the run goes on once `POST /v1/runs/{id}/answers` answers it
        // (an interrupt would end the run, and the call waits inside it).
        yield* closeMessage();
        yield {
          type: 'CUSTOM',
          name: 'raf.input-request',
          value: questionData(event, servedRunId),
        } as BaseEvent;
        break;
      case 'error':
        failure = { code: event.code, message: event.message };
        break;
      case 'finish':
        yield* closeMessage();
        if (failure) {
          yield { type: 'RUN_ERROR', message: failure.message, code: failure.code } as BaseEvent;
          return;
        }
        yield {
          type: 'RUN_FINISHED',
          threadId,
          runId,
          outcome:
            event.reason === 'awaitingApproval' && interrupts.length > 0
              ? { type: 'interrupt', interrupts }
              : event.reason === 'cancelled'
                ? { type: 'cancelled' }
                : { type: 'success' },
          metadata: { rafRunId: servedRunId, reason: event.reason },
        } as BaseEvent;
        return;
      default:
        break;
    }
  }
}

/** What a `RunAgentInput` asks for: a new turn (the last user message), or answers to interrupts. */
export type AgUiIntent =
  | { kind: 'turn'; input: string }
  | { kind: 'resume'; servedRunId: string; approvals: ApprovalResponse[] }
  | { kind: 'invalid'; message: string };

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      part && typeof part === 'object' && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : '',
    )
    .join('');
}

/**
 * Reads a (schema-checked) `RunAgentInput`: resume entries answer the interrupts of one served run
 * (`resolved` with `{approved}`, or `cancelled`: denied); otherwise the last user message is the
 * turn's input (the session keeps the history: earlier messages are not replayed).
 */
export function agUiIntent(input: RunAgentInput): AgUiIntent {
  const resume = input.resume ?? [];
  if (resume.length > 0) {
    const approvals: ApprovalResponse[] = [];
    let runId: string | undefined;
    for (const [i, entry] of resume.entries()) {
      const parsed = parseInterruptId(entry.interruptId);
      if (!parsed)
        return {
          kind: 'invalid',
          message: `resume: ${entry.interruptId} is not an interrupt of this server`,
        };
      if (runId !== undefined && parsed.runId !== runId)
        return { kind: 'invalid', message: 'resume: the entries answer interrupts of different runs' };
      runId = parsed.runId;
      const payload = (entry.payload ?? {}) as { approved?: unknown; reason?: unknown };
      // The same limit as `/v1`'s approvals: the reason reaches the model and the session.
      if (typeof payload.reason === 'string' && payload.reason.length > MAX_APPROVAL_REASON)
        return { kind: 'invalid', message: `resume.${i}.payload.reason: ${APPROVAL_REASON_MESSAGE}` };
      const approved = entry.status === 'resolved' && payload.approved === true;
      approvals.push({
        callId: parsed.callId,
        approved,
        ...(typeof payload.reason === 'string' && { reason: payload.reason }),
      });
    }
    return { kind: 'resume', servedRunId: runId!, approvals };
  }
  const last = [...input.messages].reverse().find((m) => m.role === 'user');
  if (!last) return { kind: 'invalid', message: 'messages: no user message to answer' };
  return { kind: 'turn', input: textOf((last as { content?: unknown }).content) };
}
