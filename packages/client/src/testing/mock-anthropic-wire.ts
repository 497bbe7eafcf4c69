import type { FinishReason, Usage } from '@raf/core';
import { split } from './mock-openai-wire.js';
import type { MockProtocol, WireOptions } from './mock-protocol.js';
import type { RecordedRequest } from './mock-server.js';
import { callArguments, callId, type ScriptTurn, textChunks, turnFinishReason } from './script-turn.js';

const STOP_REASON: Partial<Record<FinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  toolCalls: 'tool_use',
  contentFilter: 'refusal',
};

const ERROR_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

function stopReason(turn: ScriptTurn): string {
  const reason = turnFinishReason(turn);
  return STOP_REASON[reason] ?? reason;
}

/** Anthropic counts cache reads apart from `input_tokens`. */
export function anthropicUsage(usage: Usage): Record<string, number> {
  const hit = usage.promptCacheHitTokens;
  const wire: Record<string, number> = {
    input_tokens: usage.promptTokens - (hit ?? 0),
    output_tokens: usage.completionTokens,
  };
  if (hit !== undefined) {
    wire.cache_creation_input_tokens = 0;
    wire.cache_read_input_tokens = hit;
  }
  return wire;
}

function event(payload: Record<string, unknown> & { type: string }): string {
  return `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

function signature(options: WireOptions): string {
  return `mock-signature-${options.turnIndex}`;
}

function message(turn: ScriptTurn, options: WireOptions): Record<string, unknown> {
  return {
    id: turn.id ?? `msg_mock_${options.turnIndex}`,
    type: 'message',
    role: 'assistant',
    model: turn.model ?? options.model,
  };
}

/** The SSE events of a streamed answer: thinking, text, then one block per tool call. */
function streamEvents(turn: ScriptTurn, options: WireOptions): string[] {
  const usage = turn.usage && anthropicUsage(turn.usage);
  const start = { ...message(turn, options), content: [], stop_reason: null, stop_sequence: null };
  const events = [
    event({
      type: 'message_start',
      message: usage ? { ...start, usage: { ...usage, output_tokens: 1 } } : start,
    }),
    event({ type: 'ping' }),
  ];
  let index = 0;
  const block = (contentBlock: Record<string, unknown>, deltas: Record<string, unknown>[]) => {
    events.push(event({ type: 'content_block_start', index, content_block: contentBlock }));
    for (const delta of deltas) events.push(event({ type: 'content_block_delta', index, delta }));
    events.push(event({ type: 'content_block_stop', index }));
    index++;
  };
  if (turn.reasoning) {
    block({ type: 'thinking', thinking: '', signature: '' }, [
      ...split(turn.reasoning, 2).map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: signature(options) },
    ]);
  }
  const text = textChunks(turn);
  if (text.length > 0) {
    block(
      { type: 'text', text: '' },
      text.map((piece) => ({ type: 'text_delta', text: piece })),
    );
  }
  (turn.toolCalls ?? []).forEach((call, position) => {
    block(
      { type: 'tool_use', id: callId(call, options.turnIndex, position), name: call.name, input: {} },
      split(callArguments(call), options.argumentChunks).map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      })),
    );
  });
  const delta: Record<string, unknown> & { type: string } = {
    type: 'message_delta',
    delta: { stop_reason: stopReason(turn), stop_sequence: null },
  };
  const finalUsage = options.rawUsage ?? (usage && { output_tokens: usage.output_tokens });
  if (finalUsage) delta.usage = finalUsage;
  events.push(event(delta));
  return events;
}

/** A non-streamed answer (`stream: false`). */
function completionBody(turn: ScriptTurn, options: WireOptions): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (turn.reasoning)
    content.push({ type: 'thinking', thinking: turn.reasoning, signature: signature(options) });
  const text = textChunks(turn).join('');
  if (text) content.push({ type: 'text', text });
  (turn.toolCalls ?? []).forEach((call, position) => {
    content.push({
      type: 'tool_use',
      id: callId(call, options.turnIndex, position),
      name: call.name,
      input: JSON.parse(callArguments(call)) as unknown,
    });
  });
  const body: Record<string, unknown> = {
    ...message(turn, options),
    content,
    stop_reason: stopReason(turn),
    stop_sequence: null,
  };
  const usage = options.rawUsage ?? (turn.usage && anthropicUsage(turn.usage));
  if (usage) body.usage = usage;
  return body;
}

type WireBlock = { type?: unknown; id?: unknown; tool_use_id?: unknown };
function blocks(content: unknown): WireBlock[] {
  return Array.isArray(content) ? (content as WireBlock[]) : [];
}

/** The refusals of the real API that a client bug would meet first. */
function checkRequest(request: RecordedRequest): string | undefined {
  const body = request.body ?? {};
  if (request.headers['anthropic-version'] === undefined) return 'anthropic-version: header is required';
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    return 'max_tokens: Field required';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  for (let i = 0; i < messages.length; i++) {
    const entry = messages[i] as { role?: unknown; content?: unknown };
    if (entry.role !== 'user' && entry.role !== 'assistant') {
      return `messages.${i}.role: Input should be 'user' or 'assistant' (a system prompt goes in the top-level "system")`;
    }
    const previous = i > 0 ? blocks((messages[i - 1] as { content?: unknown }).content) : [];
    const asked = new Set(previous.filter((b) => b.type === 'tool_use').map((b) => b.id));
    for (const result of blocks(entry.content).filter((b) => b.type === 'tool_result')) {
      if (!asked.has(result.tool_use_id)) {
        return `messages.${i}: unexpected tool_use_id ${JSON.stringify(result.tool_use_id)} in a tool_result block: each tool_result must answer a tool_use block of the previous message`;
      }
    }
  }
  return undefined;
}

/** The Anthropic Messages API, as `startMockAnthropicServer` speaks it. */
export const anthropicProtocol: MockProtocol = {
  route: '/messages',
  modelList: (model) => ({
    data: [{ type: 'model', id: model, display_name: model, created_at: '2025-01-01T00:00:00Z' }],
    has_more: false,
    first_id: model,
    last_id: model,
  }),
  checkRequest,
  errorBody: (status, message, type) => ({
    type: 'error',
    error: { type: type ?? ERROR_TYPE[status] ?? 'api_error', message },
  }),
  streamEvents,
  endEvent: event({ type: 'message_stop' }),
  malformedEvent: 'event: content_block_delta\ndata: {"type": "content_block_delta", oops\n\n',
  completionBody,
};
