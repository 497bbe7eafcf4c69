import type { Usage } from '@raf/core';
import type { MockProtocol, WireOptions } from './mock-protocol.js';
import { callArguments, callId, type ScriptTurn, textChunks, turnFinishReason } from './script-turn.js';

const WIRE_FINISH: Record<string, string> = {
  stop: 'stop',
  length: 'length',
  toolCalls: 'tool_calls',
  contentFilter: 'content_filter',
};

export function wireUsage(usage: Usage): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
  };
  if (usage.promptCacheHitTokens !== undefined)
    wire.prompt_tokens_details = { cached_tokens: usage.promptCacheHitTokens };
  if (usage.promptCacheMissTokens !== undefined) {
    wire.prompt_cache_hit_tokens = usage.promptCacheHitTokens ?? 0;
    wire.prompt_cache_miss_tokens = usage.promptCacheMissTokens;
  }
  if (usage.reasoningTokens !== undefined) {
    wire.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  }
  return wire;
}

export function split(text: string, pieces: number): string[] {
  if (pieces <= 1 || text.length <= 1) return [text];
  const size = Math.ceil(text.length / pieces);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The `data:` payloads of a streamed answer, in order, without `[DONE]`. */
export function streamChunks(turn: ScriptTurn, options: WireOptions): string[] {
  const id = turn.id ?? `chatcmpl-mock-${options.turnIndex}`;
  const model = turn.model ?? options.model;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created: 0,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const chunks = [chunk({ role: 'assistant', content: '' })];
  if (turn.reasoning)
    for (const piece of split(turn.reasoning, 2)) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of textChunks(turn)) chunks.push(chunk({ content: piece }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    const args = split(callArguments(call), options.argumentChunks);
    chunks.push(
      chunk({
        tool_calls: [
          {
            index,
            id: callId(call, options.turnIndex, index),
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    );
    for (const piece of args) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, WIRE_FINISH[turnFinishReason(turn)] ?? turnFinishReason(turn)));
  const usage = options.rawUsage ?? (turn.usage && wireUsage(turn.usage));
  if (usage)
    chunks.push(
      JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [], usage }),
    );
  return chunks;
}

/** A non-streamed `chat.completion` answer. */
export function completionBody(turn: ScriptTurn, options: WireOptions): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: textChunks(turn).join('') || null };
  if (turn.reasoning) message.reasoning_content = turn.reasoning;
  if (turn.toolCalls?.length) {
    message.tool_calls = turn.toolCalls.map((call, index) => ({
      id: callId(call, options.turnIndex, index),
      type: 'function',
      function: { name: call.name, arguments: callArguments(call) },
    }));
  }
  const body: Record<string, unknown> = {
    id: turn.id ?? `chatcmpl-mock-${options.turnIndex}`,
    object: 'chat.completion',
    created: 0,
    model: turn.model ?? options.model,
    choices: [
      { index: 0, message, finish_reason: WIRE_FINISH[turnFinishReason(turn)] ?? turnFinishReason(turn) },
    ],
  };
  const usage = options.rawUsage ?? (turn.usage && wireUsage(turn.usage));
  if (usage) body.usage = usage;
  return body;
}

/** OpenAI Chat Completions, as `startMockModelServer` speaks it. */
export const openAIProtocol: MockProtocol = {
  route: '/chat/completions',
  modelList: (model) => ({ object: 'list', data: [{ id: model, object: 'model', owned_by: 'raf-mock' }] }),
  errorBody: (_status, message, type = 'mock_error') => ({ error: { message, type } }),
  streamEvents: (turn, options) => streamChunks(turn, options).map((chunk) => `data: ${chunk}\n\n`),
  endEvent: 'data: [DONE]\n\n',
  malformedEvent: 'data: {"choices": [ {"delta": oops\n\n',
  completionBody,
};
