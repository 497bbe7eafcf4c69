import type { AgentResponseUpdate } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { ChunkMapper } from './chunk-mapper.js';

function run(chunks: object[], sawDone = true) {
  const mapper = new ChunkMapper();
  const out: AgentResponseUpdate[] = [];
  for (const chunk of chunks) mapper.consume(chunk, out);
  const problem = mapper.finish(sawDone, out);
  return { out, problem };
}

describe('ChunkMapper', () => {
  it('invents a call id when a server sends none, and buffers arguments sent before the name', () => {
    const { out } = run([
      { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] } }] },
      { choices: [{ delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: '1}' } }] } }] },
      { choices: [{ delta: {}, finish_reason: 'tool_calls' }] },
    ]);
    const start = out[0] as Extract<AgentResponseUpdate, { type: 'tool-call-start' }>;
    expect(start.callId).toMatch(/^call_/);
    expect(out.slice(1)).toEqual([
      { type: 'tool-call-args', callId: start.callId, delta: '{"a":1}' },
      { type: 'tool-call-end', callId: start.callId, name: 'f', arguments: '{"a":1}' },
      { type: 'finish', reason: 'toolCalls' },
    ]);
  });

  it('keys calls by id when a server omits index', () => {
    const { out } = run([
      { choices: [{ delta: { tool_calls: [{ id: 'x', function: { name: 'a', arguments: '{}' } }] } }] },
      { choices: [{ delta: { tool_calls: [{ id: 'y', function: { name: 'b', arguments: '{}' } }] } }] },
      { choices: [{ delta: {}, finish_reason: 'stop' }] },
    ]);
    expect(
      out.filter((u) => u.type === 'tool-call-end').map((u) => u.type === 'tool-call-end' && u.callId),
    ).toEqual(['x', 'y']);
    // A server that says "stop" after calls still reports that calls wait.
    expect(out.at(-1)).toEqual({ type: 'finish', reason: 'toolCalls' });
  });

  it('maps unknown finish reasons to other with the raw value', () => {
    expect(run([{ choices: [{ delta: { content: 'x' }, finish_reason: 'eos_token' }] }]).out.at(-1)).toEqual({
      type: 'finish',
      reason: 'other',
      rawReason: 'eos_token',
    });
    expect(run([{ choices: [{ delta: { content: 'x' }, finish_reason: 'length' }] }]).out.at(-1)).toEqual({
      type: 'finish',
      reason: 'length',
    });
  });

  it('refuses a call that never got a name', () => {
    const { problem } = run([
      {
        choices: [
          {
            delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] },
            finish_reason: 'tool_calls',
          },
        ],
      },
    ]);
    expect(problem).toBe('tool call #0 arrived without a function name');
  });

  it('treats [DONE] without a finish reason as a normal end', () => {
    expect(run([{ choices: [{ delta: { content: 'x' } }] }], true).out.at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
    });
    expect(run([{ choices: [{ delta: { content: 'x' } }] }], false).problem).toMatch(
      /ended before the model finished/,
    );
  });
});
