import { ScriptedChatClient } from '@raf/client/testing';
import {
  assistantMessage,
  type ChatMessage,
  messageText,
  systemMessage,
  toolMessage,
  userMessage,
} from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { drain, echoTool, type Harness, sentMessages, startHarness } from '../test-support/harness.js';
import { CompressionProvider } from './compression-provider.js';
import { groupMessages } from './message-groups.js';
import { CompressionPipeline, SlidingWindowStrategy, TokenBudgetStrategy } from './strategies.js';
import { SummarizeStrategy } from './summarize-strategy.js';
import { EstimateTokenCounter, ExactTokenCounter } from './token-counters.js';

const counter = new EstimateTokenCounter();
const call = (id: string) =>
  assistantMessage('', [{ id, name: 'read_file', arguments: `{"path":"${id}.txt"}` }]);
const result = (id: string, size = 400) => toolMessage(`{"ok":true,"data":"${'x'.repeat(size)}"}`, id);

const conversation: ChatMessage[] = [
  systemMessage('You are careful.'),
  userMessage('read a'),
  call('a'),
  result('a'),
  assistantMessage('a read'),
  userMessage('read b'),
  call('b'),
  result('b'),
  assistantMessage('b read'),
  userMessage('now?'),
];

function assertWellFormed(messages: readonly ChatMessage[]) {
  expect(messages[0]?.role).toBe('system');
  expect(groupMessages(messages).some((g) => g.orphan)).toBe(false);
  const firstNonSystem = messages.find((m) => m.role !== 'system');
  expect(firstNonSystem?.role).not.toBe('tool');
}

let harness: Harness;
afterEach(() => harness?.close());

describe('compression strategies', () => {
  it('sliding window keeps system messages and the newest messages, cut between groups', () => {
    const out = new SlidingWindowStrategy(4).compress(conversation);
    expect(out.map((m) => m.role)).toEqual(['system', 'assistant', 'tool', 'assistant', 'user']);
    assertWellFormed(out);
  });

  it('token budget folds old tool groups into one line, then drops the oldest groups', () => {
    const strategy = new TokenBudgetStrategy();
    expect(strategy.toolResultEvictionThreshold).toBe(0.5);
    const total = counter.countTokens(conversation);
    const folded = strategy.compress(conversation, total - 50, counter);
    expect(
      folded.filter((m) =>
        messageText(m).startsWith('[Earlier tool calls: 1 call(s) were made and completed]'),
      ),
    ).toHaveLength(2);
    expect(folded.some((m) => m.role === 'tool')).toBe(false);
    // 25 estimated tokens hold the system message, the last answer and the question.
    const tight = strategy.compress(conversation, 25, counter);
    expect(tight.map((m) => m.content)).toEqual(['You are careful.', 'b read', 'now?']);
    expect(counter.countTokens(tight)).toBeLessThanOrEqual(25);
    assertWellFormed(tight);
  });

  it('a pipeline stops as soon as the messages fit', async () => {
    const pipeline = new CompressionPipeline()
      .addStrategy(new SlidingWindowStrategy(8))
      .addStrategy(new TokenBudgetStrategy());
    const roomy = await pipeline.compress(conversation, 10_000, counter);
    expect(roomy).toEqual(conversation);
    const out = await pipeline.compress(conversation, 60, counter);
    expect(counter.countTokens(out)).toBeLessThanOrEqual(60);
    assertWellFormed(out);
  });

  it('summarize replaces the oldest part with a model-written summary', async () => {
    const summarizer = new ScriptedChatClient([{ text: 'User had files a and b read.' }]);
    const out = await new SummarizeStrategy({ client: summarizer }).compress(conversation, 120, counter);
    expect(out[0]).toEqual(systemMessage('You are careful.'));
    expect(out[1]).toEqual(
      systemMessage('Summary of the earlier conversation:\nUser had files a and b read.'),
    );
    expect(out.at(-1)).toEqual(userMessage('now?'));
    assertWellFormed(out);
    expect(summarizer.calls[0]?.messages[1]?.content).toContain(
      'assistant:  [called read_file {"path":"a.txt"}]',
    );
  });

  it('counts exactly with gpt-tokenizer for OpenAI models', async () => {
    const exact = await ExactTokenCounter.forModel('gpt-4o-mini');
    expect(exact.encoding).toBe('o200k_base');
    expect(exact.countTextTokens('hello world')).toBe(2);
    expect(exact.countTokens([userMessage('hello world')])).toBe(3 + 3 + 2);
    expect((await ExactTokenCounter.forModel('gpt-4')).encoding).toBe('cl100k_base');
    expect(counter.countTextTokens('hello world')).toBe(3);
  });
});

describe('compression in the agent', () => {
  it('compresses when the budget is exceeded mid-conversation; no request starts with an orphan tool result', async () => {
    harness = await startHarness([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x'.repeat(300) } }] },
      { text: 'first' },
      { toolCalls: [{ id: 'c2', name: 'echo', arguments: { text: 'y'.repeat(300) } }] },
      { text: 'second' },
      { text: 'third' },
    ]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .instructions('Keep me.')
      .withTool(echoTool())
      .withCompression(new SlidingWindowStrategy(3), { inputBudget: 200 })
      .build();
    const session = agent.createSession();
    for (const q of ['one', 'two', 'three']) await drain(agent.run(q, { session }));
    // Compression shapes the request only; the session keeps the whole conversation.
    expect(session.messages).toHaveLength(10);
    for (let i = 0; i < harness.server.requests.length; i++) {
      const sent = sentMessages(harness.server, i);
      expect(sent[0]).toEqual({ role: 'system', content: 'Keep me.' });
      expect(sent[1]?.role).not.toBe('tool');
    }
    // Window 3: the last tool group would make 4 messages, so it goes whole, never half.
    expect(sentMessages(harness.server, 4).map((m) => m.content)).toEqual(['Keep me.', 'second', 'three']);
  });

  it('works as a replaceMessages provider declared last', async () => {
    harness = await startHarness([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withContextProvider(
        new CompressionProvider({ strategy: new SlidingWindowStrategy(2), counter, maxTokens: 10 }),
      )
      .build();
    const session = agent.createSession();
    for (const q of ['q1', 'q2', 'q3']) await drain(agent.run(q, { session }));
    expect(sentMessages(harness.server, 2).map((m) => m.content)).toEqual(['q2', 'b', 'q3']);
  });
});
