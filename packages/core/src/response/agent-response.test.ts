import { describe, expect, it } from 'vitest';
import type { AgentResponseUpdate } from '../updates/agent-response-update.js';
import { collectAgentResponse, StreamFailedError } from './agent-response.js';

async function* from(updates: AgentResponseUpdate[]): AsyncIterable<AgentResponseUpdate> {
  yield* updates;
}

describe('collectAgentResponse', () => {
  it('joins text and reasoning, gathers calls, sums usage and keeps the finish reason', async () => {
    const response = await collectAgentResponse(
      from([
        { type: 'response-metadata', id: 'r1', model: 'm' },
        { type: 'reasoning-delta', delta: 'think' },
        { type: 'text-delta', delta: 'Hel' },
        { type: 'text-delta', delta: 'lo' },
        { type: 'tool-call-start', callId: 'a', name: 't' },
        { type: 'tool-call-end', callId: 'a', name: 't', arguments: '{}' },
        { type: 'usage', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } },
        { type: 'usage', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } },
        { type: 'warning', message: 'w' },
        { type: 'finish', reason: 'stop' },
      ]),
    );
    expect(response).toEqual({
      id: 'r1',
      model: 'm',
      text: 'Hello',
      reasoningText: 'think',
      toolCalls: [{ id: 'a', name: 't', arguments: '{}' }],
      toolResults: [],
      approvalRequests: [],
      warnings: ['w'],
      usage: { promptTokens: 2, completionTokens: 4, totalTokens: 6 },
      finishReason: 'stop',
    });
  });

  it('throws StreamFailedError on an error update, keeping the partial text', async () => {
    const error = await collectAgentResponse(
      from([
        { type: 'text-delta', delta: 'partial' },
        { type: 'error', code: 'RAF_STREAM', message: 'connection reset' },
        { type: 'finish', reason: 'other' },
      ]),
    ).catch((e: unknown) => e);
    expect(StreamFailedError.isInstance(error)).toBe(true);
    expect((error as StreamFailedError).partial.text).toBe('partial');
    expect((error as StreamFailedError).streamCode).toBe('RAF_STREAM');
  });
});
