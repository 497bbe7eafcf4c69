import { CancelledError, collectAgentResponse, ScriptError, userMessage } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { ScriptedChatClient } from './scripted-chat-client.js';
import { drain, thrown } from './test-helpers.js';

describe('ScriptedChatClient', () => {
  it('answers turns in order with the updates a real client yields, and records calls', async () => {
    const client = new ScriptedChatClient([
      { toolCalls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] },
      { text: 'It is noon.' },
    ]);
    expect(await drain(client.run([userMessage('time?')], { modelOptions: { temperature: 0 } }))).toEqual([
      { type: 'tool-call-start', callId: 'call_0_0', name: 'get_time' },
      { type: 'tool-call-args', callId: 'call_0_0', delta: '{"tz":"UTC"}' },
      { type: 'tool-call-end', callId: 'call_0_0', name: 'get_time', arguments: '{"tz":"UTC"}' },
      { type: 'finish', reason: 'toolCalls' },
    ]);
    const second = await collectAgentResponse(client.run([userMessage('again')]));
    expect(second.text).toBe('It is noon.');
    expect(client.calls.map((c) => c.messages.at(-1)?.content)).toEqual(['time?', 'again']);
    expect(client.calls[0]?.options.modelOptions).toEqual({ temperature: 0 });
    expect(client.remaining).toBe(0);
  });

  it('throws a clear ScriptError when the script runs out', async () => {
    const client = new ScriptedChatClient([{ text: 'only one' }]);
    await drain(client.run([userMessage('a')]));
    const error = await thrown(() => drain(client.run([userMessage('second question')])));
    expect(ScriptError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'ScriptedChatClient: script exhausted: 1 answer(s) scripted, call #2 has no answer (last message (user): "second question")',
    );
  });

  it('accepts raw update arrays, functions of the request and scripted failures', async () => {
    const boom = new Error('model down');
    const client = new ScriptedChatClient([
      [
        { type: 'text-delta', delta: 'raw' },
        { type: 'finish', reason: 'length' },
      ],
      (messages) => ({ text: `echo ${messages.at(-1)?.content}` }),
      { fail: boom },
    ]);
    expect((await collectAgentResponse(client.run([userMessage('x')]))).finishReason).toBe('length');
    expect((await collectAgentResponse(client.run([userMessage('hey')]))).text).toBe('echo hey');
    expect(await thrown(() => drain(client.run([userMessage('x')])))).toBe(boom);
  });

  it('stops with CancelledError when the signal aborts', async () => {
    const client = new ScriptedChatClient([{ text: 'a b c' }]);
    const error = await thrown(() => drain(client.run([userMessage('x')], { signal: AbortSignal.abort() })));
    expect(CancelledError.isInstance(error)).toBe(true);
  });
});
