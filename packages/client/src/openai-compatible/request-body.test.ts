import {
  assistantMessage,
  type ChatClientRunOptions,
  type ChatMessage,
  systemMessage,
  toolMessage,
  userMessage,
} from '@raf/core';
import { describe, expect, it } from 'vitest';
import { buildRequestBody, type RequestBodyOptions, serializeRequestBody } from './request-body.js';

const tools = [
  {
    name: 'lookup',
    description: 'Look up',
    parameters: { type: 'object', properties: { id: { type: 'number' } } },
  },
];
const conversation = (): ChatMessage[] => [
  systemMessage('Be brief.'),
  userMessage('go "quoted" ✓'),
  { ...assistantMessage('', [{ id: 'c1', name: 'lookup', arguments: '{"id":1}' }]), reasoning: 'think' },
  toolMessage('{"ok":true}', 'c1'),
];

describe('serializeRequestBody', () => {
  const cases: [string, ChatClientRunOptions, Partial<RequestBodyOptions>][] = [
    ['streaming with tools', { tools }, {}],
    ['not streaming', {}, { stream: false }],
    [
      'tool choice and parallel calls',
      { tools, toolChoice: { name: 'lookup' }, parallelToolCalls: false },
      {},
    ],
    [
      'model options over defaults',
      { modelOptions: { temperature: 0.2, stop: ['x'] } },
      { defaults: { temperature: 1, seed: 7 } },
    ],
    ['echoing reasoning', { tools }, { echoReasoning: true }],
    [
      'an extra body that replaces fields',
      { extraBody: { model: 'other', thinking: { type: 'on' } } },
      { defaultExtraBody: { a: 1 } },
    ],
  ];
  it.each(cases)('sends the same JSON as buildRequestBody: %s', (_, run, extra) => {
    const options: RequestBodyOptions = { model: 'm', stream: true, echoReasoning: false, ...extra };
    const messages = conversation();
    const expected = buildRequestBody(messages, run, options);
    expect(JSON.parse(serializeRequestBody(messages, run, options))).toEqual(expected);
    // The second call reads the cache and must not differ.
    expect(JSON.parse(serializeRequestBody(messages, run, options))).toEqual(expected);
  });

  it('serializes a message again when one of its fields was reassigned', () => {
    const messages = conversation();
    const options: RequestBodyOptions = { model: 'm', stream: true, echoReasoning: false };
    serializeRequestBody(messages, {}, options);
    messages[1]!.content = 'changed';
    messages[2]!.toolCalls!.push({ id: 'c2', name: 'lookup', arguments: '{}' });
    const body = JSON.parse(serializeRequestBody(messages, {}, options));
    expect(body.messages[1].content).toBe('changed');
    expect(body.messages[2].tool_calls).toHaveLength(2);
  });
});
