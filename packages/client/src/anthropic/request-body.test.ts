import { type ChatMessage, type ToolChoice, userMessage } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { buildMessagesBody } from './request-body.js';

const tool = { name: 'f', description: 'd', parameters: { type: 'object' } };
// Without cache breakpoints: these tests read the shape of the rest (the breakpoints have their own).
const base = { model: 'claude', stream: true, maxTokens: 4096, defaults: { cache: false as const } };

describe('buildMessagesBody', () => {
  it.each<[ToolChoice | undefined, boolean | undefined, unknown]>([
    ['auto', undefined, { type: 'auto' }],
    ['required', undefined, { type: 'any' }],
    ['none', undefined, { type: 'none' }],
    [{ name: 'f' }, undefined, { type: 'tool', name: 'f' }],
    [undefined, false, { type: 'auto', disable_parallel_tool_use: true }],
    [{ name: 'f' }, false, { type: 'tool', name: 'f', disable_parallel_tool_use: true }],
    [undefined, true, undefined],
  ])('maps tool choice %j with parallel %s', (toolChoice, parallelToolCalls, expected) => {
    const body = buildMessagesBody(
      [userMessage('x')],
      { tools: [tool], toolChoice, parallelToolCalls },
      base,
    );
    expect(body.tool_choice).toEqual(expected);
  });

  it('sends no tools and no tool choice when there are no tools', () => {
    const body = buildMessagesBody([userMessage('x')], { toolChoice: 'required' }, base);
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
  });

  it('takes max_tokens from the run, else the defaults, else the client fallback', () => {
    expect(buildMessagesBody([userMessage('x')], {}, base).max_tokens).toBe(4096);
    const defaults = { ...base, defaults: { maxTokens: 1000 } };
    expect(buildMessagesBody([userMessage('x')], {}, defaults).max_tokens).toBe(1000);
    expect(
      buildMessagesBody([userMessage('x')], { modelOptions: { maxTokens: 50 } }, defaults).max_tokens,
    ).toBe(50);
  });

  it('sends no option the API lacks, and lets extra body win last', () => {
    const body = buildMessagesBody(
      [userMessage('x')],
      {
        modelOptions: {
          seed: 1,
          presencePenalty: 1,
          frequencyPenalty: 1,
          reasoningEffort: 'high',
          responseFormat: {},
        },
        extraBody: { max_tokens: 7 },
      },
      { ...base, defaultExtraBody: { max_tokens: 9, top_k: 3 } },
    );
    expect(body).toEqual({
      model: 'claude',
      max_tokens: 7,
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      top_k: 3,
    });
  });

  it('merges messages of one role, drops empty assistant turns and sends unparsable arguments as {}', () => {
    const messages: ChatMessage[] = [
      userMessage('a'),
      userMessage('b'),
      { role: 'assistant', content: '' },
      userMessage('c'),
      { role: 'assistant', content: '', toolCalls: [{ id: 't', name: 'f', arguments: '{"broken' }] },
      { role: 'tool', content: 'Rejected: User denied', toolCallId: 't' },
    ];
    expect(buildMessagesBody(messages, {}, base).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
          { type: 'text', text: 'c' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't', content: 'Rejected: User denied' }],
      },
    ]);
  });

  it('marks the system prompt, the tool list and the last turn for the prompt cache by default', () => {
    const { defaults: _none, ...auto } = base;
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      userMessage('first'),
      { role: 'assistant', content: 'ok' },
      userMessage('second'),
    ];
    const body = buildMessagesBody(messages, { tools: [tool, { ...tool, name: 'g' }] }, auto);
    expect(body.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }]);
    expect(body.tools).toEqual([
      { name: 'f', description: 'd', input_schema: { type: 'object' } },
      { name: 'g', description: 'd', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    ]);
    expect((body.messages as { content: unknown }[]).map((m) => m.content)).toEqual([
      'first',
      'ok',
      [{ type: 'text', text: 'second', cache_control: { type: 'ephemeral' } }],
    ]);
    // `cache: [places]` marks only those; `cache: false` none.
    const tools = buildMessagesBody(messages, { tools: [tool], modelOptions: { cache: ['tools'] } }, auto);
    expect(tools.system).toBe('Be brief.');
    expect(tools.tools).toEqual([
      { name: 'f', description: 'd', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    ]);
    expect(
      JSON.stringify(buildMessagesBody(messages, { modelOptions: { cache: false } }, auto)),
    ).not.toContain('cache_control');
  });
});
