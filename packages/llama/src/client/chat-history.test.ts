import { assistantMessage, systemMessage, toolMessage, userMessage } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { toChatHistory } from './chat-history.js';

describe('messages as node-llama-cpp chat history', () => {
  it('ends with an empty model response for the model to write', () => {
    expect(toChatHistory([systemMessage('Be brief.'), userMessage('Hi')])).toEqual([
      { type: 'system', text: 'Be brief.' },
      { type: 'user', text: 'Hi' },
      { type: 'model', response: [] },
    ]);
  });

  it('joins a turn with its tool calls and their results into the model response it continues', () => {
    expect(
      toChatHistory([
        userMessage('Weather in Paris and Rome?'),
        assistantMessage('Checking.', [
          { id: 'a', name: 'weather', arguments: '{"city":"Paris"}' },
          { id: 'b', name: 'weather', arguments: '{"city":"Rome"}' },
        ]),
        toolMessage('{"ok":true,"data":"sunny"}', 'a'),
        toolMessage('not json', 'b'),
        toolMessage('orphan', 'zzz'),
      ]),
    ).toEqual([
      { type: 'user', text: 'Weather in Paris and Rome?' },
      {
        type: 'model',
        response: [
          'Checking.',
          {
            type: 'functionCall',
            name: 'weather',
            params: { city: 'Paris' },
            result: { ok: true, data: 'sunny' },
            startsNewChunk: true,
          },
          {
            type: 'functionCall',
            name: 'weather',
            params: { city: 'Rome' },
            result: 'not json',
            startsNewChunk: false,
          },
          'Tool result: orphan',
        ],
      },
    ]);
  });

  it('a finished answer followed by a new question starts a new model response', () => {
    expect(
      toChatHistory([userMessage('a'), assistantMessage('b'), userMessage('c')]).map((item) => item.type),
    ).toEqual(['user', 'model', 'user', 'model']);
  });
});
