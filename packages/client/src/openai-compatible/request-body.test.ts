import { assistantMessage, type ChatMessage, systemMessage, toolMessage, userMessage } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { buildRequestBody, type RequestBodyOptions } from './request-body.js';

const tools = [{ name: 'lookup', description: 'Look up', parameters: { type: 'object' } }];
const conversation: ChatMessage[] = [
  systemMessage('Be brief.'),
  userMessage('go'),
  { ...assistantMessage('', [{ id: 'c1', name: 'lookup', arguments: '{"id":1}' }]), reasoning: 'think' },
  toolMessage('{"ok":true}', 'c1'),
];
const base: RequestBodyOptions = { model: 'm', stream: true, echoReasoning: false };

describe('buildRequestBody', () => {
  it('maps messages and tools to the Chat Completions wire format', () => {
    expect(buildRequestBody(conversation, { tools }, base)).toEqual({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"id":1}' } }],
        },
        { role: 'tool', content: '{"ok":true}', tool_call_id: 'c1' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'lookup', description: 'Look up', parameters: { type: 'object' } },
        },
      ],
    });
  });

  it('echoes reasoning only when asked (DeepSeek thinking mode)', () => {
    const body = buildRequestBody(conversation, {}, { ...base, echoReasoning: true });
    expect((body.messages as Record<string, unknown>[])[2]).toMatchObject({ reasoning_content: 'think' });
  });

  it('layers client defaults < per-run options < extra body', () => {
    const body = buildRequestBody(
      [userMessage('x')],
      { modelOptions: { temperature: 0.2 }, extraBody: { model: 'other' } },
      { ...base, stream: false, defaults: { temperature: 1, seed: 7 }, defaultExtraBody: { a: 1 } },
    );
    expect(body).toMatchObject({ model: 'other', temperature: 0.2, seed: 7, a: 1, stream: false });
    expect(body).not.toHaveProperty('stream_options');
  });
});
