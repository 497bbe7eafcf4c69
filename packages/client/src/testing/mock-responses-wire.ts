import type { FinishReason, Usage } from '@raf/core';
import { split } from './mock-openai-wire.js';
import type { MockProtocol, WireOptions } from './mock-protocol.js';
import type { RecordedRequest } from './mock-server.js';
import { callArguments, callId, type ScriptTurn, textChunks, turnFinishReason } from './script-turn.js';

const INCOMPLETE: Partial<Record<FinishReason, string>> = {
  length: 'max_output_tokens',
  contentFilter: 'content_filter',
};

function responsesUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.promptTokens,
    output_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
    ...(usage.promptCacheHitTokens !== undefined && {
      input_tokens_details: { cached_tokens: usage.promptCacheHitTokens },
    }),
    ...(usage.reasoningTokens !== undefined && {
      output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    }),
  };
}

function event(payload: Record<string, unknown> & { type: string }): string {
  return `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** The output items of a turn: reasoning (encrypted, as with `store: false`), message, calls. */
function outputItems(turn: ScriptTurn, options: WireOptions): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (turn.reasoning)
    items.push({
      type: 'reasoning',
      id: `rs_mock_${options.turnIndex}`,
      summary: [{ type: 'summary_text', text: turn.reasoning }],
      encrypted_content: `mock-encrypted-${options.turnIndex}`,
    });
  const text = textChunks(turn).join('');
  if (text)
    items.push({
      type: 'message',
      id: `msg_mock_${options.turnIndex}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    });
  (turn.toolCalls ?? []).forEach((call, position) => {
    items.push({
      type: 'function_call',
      id: `fc_mock_${options.turnIndex}_${position}`,
      call_id: callId(call, options.turnIndex, position),
      name: call.name,
      arguments: callArguments(call),
      status: 'completed',
    });
  });
  return items;
}

function response(
  turn: ScriptTurn,
  options: WireOptions,
  status: string,
  output: unknown[],
): Record<string, unknown> {
  const reason = turnFinishReason(turn);
  const incomplete = INCOMPLETE[reason];
  const body: Record<string, unknown> = {
    id: turn.id ?? `resp_mock_${options.turnIndex}`,
    object: 'response',
    model: turn.model ?? options.model,
    status: status === 'completed' && incomplete ? 'incomplete' : status,
    output,
    incomplete_details: status === 'completed' && incomplete ? { reason: incomplete } : null,
  };
  const usage = options.rawUsage ?? (turn.usage && responsesUsage(turn.usage));
  if (usage && status !== 'in_progress') body.usage = usage;
  return body;
}

/** The SSE events of a streamed answer, as the API sends them. */
function streamEvents(turn: ScriptTurn, options: WireOptions): string[] {
  const events = [
    event({ type: 'response.created', response: response(turn, options, 'in_progress', []) }),
    event({ type: 'response.in_progress', response: response(turn, options, 'in_progress', []) }),
  ];
  const items = outputItems(turn, options);
  items.forEach((item, output_index) => {
    const id = item.id as string;
    const shell =
      item.type === 'function_call'
        ? { ...item, arguments: '', status: 'in_progress' }
        : item.type === 'message'
          ? { ...item, content: [], status: 'in_progress' }
          : { ...item, summary: [] };
    events.push(event({ type: 'response.output_item.added', output_index, item: shell }));
    if (item.type === 'reasoning') {
      for (const delta of split(turn.reasoning ?? '', 2))
        events.push(
          event({
            type: 'response.reasoning_summary_text.delta',
            item_id: id,
            output_index,
            summary_index: 0,
            delta,
          }),
        );
    } else if (item.type === 'message') {
      events.push(
        event({
          type: 'response.content_part.added',
          item_id: id,
          output_index,
          content_index: 0,
          part: { type: 'output_text', text: '' },
        }),
      );
      for (const delta of textChunks(turn))
        events.push(
          event({ type: 'response.output_text.delta', item_id: id, output_index, content_index: 0, delta }),
        );
      events.push(
        event({
          type: 'response.output_text.done',
          item_id: id,
          output_index,
          content_index: 0,
          text: textChunks(turn).join(''),
        }),
      );
    } else {
      for (const delta of split(item.arguments as string, options.argumentChunks))
        events.push(
          event({ type: 'response.function_call_arguments.delta', item_id: id, output_index, delta }),
        );
      events.push(
        event({
          type: 'response.function_call_arguments.done',
          item_id: id,
          output_index,
          arguments: item.arguments,
        }),
      );
    }
    events.push(event({ type: 'response.output_item.done', output_index, item }));
  });
  return events;
}

/** `response.completed` (or `incomplete`) ends the stream, with the whole response and its usage. */
function endEvent(turn: ScriptTurn, options: WireOptions): string {
  const done = response(turn, options, 'completed', outputItems(turn, options));
  return event({
    type: done.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
    response: done,
  });
}

type InputItem = {
  type?: unknown;
  role?: unknown;
  call_id?: unknown;
  encrypted_content?: unknown;
  id?: unknown;
};

/** The refusals of the real API that a client bug would meet first. */
function checkRequest(request: RecordedRequest): string | undefined {
  const body = request.body ?? {};
  if (typeof body.model !== 'string') return "Missing required parameter: 'model'.";
  const input = body.input;
  if (typeof input === 'string') return undefined;
  if (!Array.isArray(input) || input.length === 0) return "Missing required parameter: 'input'.";
  const called = new Set<unknown>();
  for (let i = 0; i < input.length; i++) {
    const item = input[i] as InputItem;
    if (item.type === 'function_call') called.add(item.call_id);
    if (item.type === 'function_call_output' && !called.has(item.call_id))
      return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
    if (item.type === 'reasoning' && body.store === false && typeof item.encrypted_content !== 'string')
      return `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false.`;
    if (item.type === undefined && !['user', 'assistant', 'system', 'developer'].includes(String(item.role)))
      return `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`;
  }
  return undefined;
}

/** The OpenAI Responses API, as `startMockResponsesServer` speaks it. */
export const responsesProtocol: MockProtocol = {
  route: '/responses',
  modelList: (model) => ({
    object: 'list',
    data: [{ id: model, object: 'model', created: 0, owned_by: 'mock' }],
  }),
  checkRequest,
  errorBody: (status, message, type) => ({
    error: {
      message,
      type:
        type ??
        (status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error'),
      param: null,
      code: null,
    },
  }),
  streamEvents,
  // There is no [DONE] marker: `response.completed` ends the stream (left out with `omitDone`).
  endEvent,
  malformedEvent: 'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", oops\n\n',
  completionBody: (turn, options) => response(turn, options, 'completed', outputItems(turn, options)),
};
