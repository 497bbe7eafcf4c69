import type { AgentResponseUpdate } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { TurnMemory } from '../stream/turn-memory.js';
import { AnthropicEventMapper } from './event-mapper.js';
import type { AnthropicWireEvent, ThinkingBlock } from './wire-types.js';

/** Feeds events through a mapper and ends the turn like readStream does. */
function map(events: AnthropicWireEvent[], memory?: TurnMemory<ThinkingBlock>) {
  const mapper = new AnthropicEventMapper(memory);
  const out: AgentResponseUpdate[] = [];
  let sawDone = false;
  for (const event of events) if (mapper.consume(event, out)) sawDone = true;
  const problem = mapper.streamError ?? mapper.finish(sawDone, out);
  return { out, problem, sawDone };
}

const stop = (reason: string): AnthropicWireEvent[] => [
  { type: 'message_delta', delta: { stop_reason: reason } },
  { type: 'message_stop' },
];

describe('AnthropicEventMapper', () => {
  it.each([
    ['end_turn', { reason: 'stop' }],
    ['stop_sequence', { reason: 'stop' }],
    ['max_tokens', { reason: 'length' }],
    ['tool_use', { reason: 'toolCalls' }],
    ['refusal', { reason: 'contentFilter' }],
    ['pause_turn', { reason: 'other', rawReason: 'pause_turn' }],
  ])('maps stop_reason %s', (raw, finish) => {
    expect(map(stop(raw)).out).toEqual([{ type: 'finish', ...finish }]);
  });

  it('ignores ping, unknown events and server-tool blocks', () => {
    const { out } = map([
      { type: 'ping' },
      { type: 'some_future_event' },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 's', name: 'web_search' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{"q":"x"}' },
      },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'web_search_tool_result' } },
      { type: 'content_block_stop', index: 1 },
      ...stop('end_turn'),
    ]);
    expect(out).toEqual([{ type: 'finish', reason: 'stop' }]);
  });

  it('takes a tool input that came whole with its block, and sends {} for an empty one', () => {
    const { out } = map([
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
      },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 't2', name: 'g', input: {} },
      },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
      { type: 'content_block_stop', index: 1 },
      ...stop('tool_use'),
    ]);
    expect(out).toEqual([
      { type: 'tool-call-start', callId: 't1', name: 'f' },
      { type: 'tool-call-args', callId: 't1', delta: '{"a":1}' },
      { type: 'tool-call-start', callId: 't2', name: 'g' },
      { type: 'tool-call-args', callId: 't2', delta: '{}' },
      { type: 'tool-call-end', callId: 't1', name: 'f', arguments: '{"a":1}' },
      { type: 'tool-call-end', callId: 't2', name: 'g', arguments: '{}' },
      { type: 'finish', reason: 'toolCalls' },
    ]);
  });

  it('refuses a tool_use block without a name, and arguments for a block that never started', () => {
    expect(
      map([
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't' } },
        ...stop('tool_use'),
      ]).problem,
    ).toBe('tool_use block #0 arrived without a name');
    expect(
      map([
        { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{' } },
        ...stop('end_turn'),
      ]).problem,
    ).toBe('input_json_delta for block #3, which never started');
  });

  it('reads an error event as a provider error, with its type', () => {
    const { problem } = map([
      { type: 'message_start', message: { id: 'm' } },
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]);
    expect(problem).toBe('overloaded_error: Overloaded');
  });

  it('counts cache reads and writes into the prompt, the latest counts winning', () => {
    const { out } = map([
      {
        type: 'message_start',
        message: {
          id: 'm',
          usage: {
            input_tokens: 10,
            output_tokens: 1,
            cache_read_input_tokens: 50,
            cache_creation_input_tokens: 5,
          },
        },
      },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 12 } },
      { type: 'message_stop' },
    ]);
    const usage = {
      promptTokens: 65,
      completionTokens: 12,
      totalTokens: 77,
      promptCacheHitTokens: 50,
      promptCacheMissTokens: 15,
    };
    expect(out).toEqual([
      { type: 'response-metadata', id: 'm' },
      { type: 'usage', usage },
      { type: 'finish', reason: 'stop', usage },
    ]);
  });

  it('remembers signed thinking blocks (and redacted ones) under the first tool call', () => {
    const memory = new TurnMemory<ThinkingBlock>();
    map(
      [
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hm.' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'enc' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 't1', name: 'f' } },
        { type: 'content_block_stop', index: 2 },
        ...stop('tool_use'),
      ],
      memory,
    );
    expect(memory.recall('t1')).toEqual([
      { type: 'thinking', thinking: 'Hm.', signature: 'sig' },
      { type: 'redacted_thinking', data: 'enc' },
    ]);
    expect(memory.recall('other')).toBeUndefined();
  });
});
