import type { ChatMessage, IContextProvider, InvokedContext } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { drain, echoTool, type Harness, sentMessages, startHarness } from '../test-support/harness.js';
import { AgentBuilder } from './agent-builder.js';

let harness: Harness;
afterEach(() => harness?.close());

function provider(
  name: string,
  result: Awaited<ReturnType<NonNullable<IContextProvider['onInvoking']>>>,
  log?: string[],
): IContextProvider {
  return {
    name,
    kind: 'custom',
    injectsTools: Boolean(result.tools),
    onInvoking: (context) => {
      log?.push(`${name} saw ${context.messages.map((m) => m.content).join('|')}`);
      return result;
    },
  };
}

const note = (content: string): ChatMessage => ({ role: 'user', content });

describe('rule 7: context providers', () => {
  it('run in declaration order after history; instructions join with a blank line; messages append', async () => {
    harness = await startHarness([{ text: 'one' }, { text: 'two' }]);
    const log: string[] = [];
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .instructions('Base.')
      .withContextProvider(provider('p1', { instructions: 'From p1.', messages: [note('m1')] }, log))
      .withContextProvider(provider('p2', { instructions: 'From p2.', messages: [note('m2')] }, log))
      .build();
    expect(agent.contextProviders.map((p) => p.name)).toEqual(['InMemoryHistoryProvider', 'p1', 'p2']);
    const session = agent.createSession();
    await drain(agent.run('first', { session }));
    await drain(agent.run('second', { session }));
    expect(sentMessages(harness.server, 1)).toEqual([
      { role: 'system', content: 'Base.\n\nFrom p1.\n\nFrom p2.' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'one' },
      { role: 'user', content: 'm1' },
      { role: 'user', content: 'm2' },
      { role: 'user', content: 'second' },
    ]);
    expect(log.slice(2)).toEqual(['p1 saw first|one', 'p2 saw first|one|m1']);
  });

  it("run instructions replace the agent's own for that run only; provider instructions still follow", async () => {
    harness = await startHarness([{ text: 'a' }, { text: 'b' }]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .instructions('Base.')
      .withContextProvider(provider('p1', { instructions: 'From p1.' }))
      .build();
    await drain(agent.run('x', { instructions: 'Just for now.', modelOptions: { temperature: 0 } }));
    await drain(agent.run('y'));
    expect(sentMessages(harness.server, 0)[0]).toEqual({
      role: 'system',
      content: 'Just for now.\n\nFrom p1.',
    });
    expect(harness.server.requests[0]?.body?.temperature).toBe(0);
    expect(sentMessages(harness.server, 1)[0]).toEqual({ role: 'system', content: 'Base.\n\nFrom p1.' });
  });

  it('replaceMessages replaces everything accumulated before it, never the caller input', async () => {
    harness = await startHarness([{ text: 'a' }, { text: 'b' }]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withContextProvider(provider('early', { messages: [note('early note')] }))
      .withContextProvider(provider('compress', { messages: [note('[summary]')], replaceMessages: true }))
      .withContextProvider(provider('late', { messages: [note('late note')] }))
      .build();
    const session = agent.createSession();
    await drain(agent.run('q1', { session }));
    await drain(agent.run('q2', { session }));
    expect(sentMessages(harness.server, 1).map((m) => m.content)).toEqual(['[summary]', 'late note', 'q2']);
  });

  it('de-duplicates tools by name: static tools first, then the first provider to name one', async () => {
    harness = await startHarness([{ text: 'ok' }]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTool(echoTool('shared'))
      .withContextProvider(provider('p1', { tools: [echoTool('shared'), echoTool('p1_tool')] }))
      .withContextProvider(provider('p2', { tools: [echoTool('p1_tool'), echoTool('p2_tool')] }))
      .build();
    await drain(agent.run('x'));
    const tools = harness.server.requests[0]?.body?.tools as { function: { name: string } }[];
    expect(tools.map((t) => t.function.name)).toEqual(['shared', 'p1_tool', 'p2_tool']);
  });

  it('skips a throwing provider with a warning and still runs', async () => {
    harness = await startHarness([{ text: 'fine' }]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withContextProvider({
        name: 'flaky',
        kind: 'custom',
        injectsTools: false,
        onInvoking: () => {
          throw new Error('db down');
        },
      })
      .withContextProvider(provider('ok', { instructions: 'Still here.' }))
      .build();
    const updates = await drain(agent.run('x'));
    expect(updates[0]).toEqual({
      type: 'warning',
      message: 'context provider flaky failed and was skipped for this run: db down',
    });
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(sentMessages(harness.server, 0)[0]).toEqual({ role: 'system', content: 'Still here.' });
  });

  it('calls onInvoked after every run, with the response or the error', async () => {
    harness = await startHarness([{ text: 'answer' }, { status: 400 }]);
    const seen: InvokedContext[] = [];
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withContextProvider({
        name: 'watcher',
        kind: 'custom',
        injectsTools: false,
        onInvoked: (c) => void seen.push(c),
      })
      .build();
    await drain(agent.run('good'));
    const failed = await drain(agent.run('bad'));
    expect(seen).toHaveLength(2);
    expect(seen[0]?.response?.text).toBe('answer');
    expect(seen[0]?.requestMessages.map((m) => m.content)).toEqual(['good']);
    expect(seen[1]?.error).toBeDefined();
    expect(failed.slice(-2)).toEqual([
      { type: 'error', code: 'RAF_CHAT_CLIENT', message: expect.stringContaining('failed with HTTP 400') },
      { type: 'finish', reason: 'other' },
    ]);
  });
});

describe('rule 3: history', () => {
  it('has exactly one history provider, first, even when one is declared', async () => {
    const { InMemoryHistoryProvider } = await import('../providers/in-memory-history-provider.js');
    harness = await startHarness([]);
    const custom = new InMemoryHistoryProvider();
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withContextProvider(provider('p1', {}))
      .withContextProvider(custom)
      .build();
    expect(agent.contextProviders.filter((p) => p.kind === 'history')).toEqual([custom]);
    expect(agent.contextProviders[0]).toBe(custom);
  });

  it('stores each message once, tool calls and results in order, and sends history once', async () => {
    harness = await startHarness([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] },
      { text: 'first answer' },
      { text: 'second answer' },
    ]);
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(echoTool()).build();
    const session = agent.createSession();
    await drain(agent.run('one', { session }));
    await drain(agent.run('two', { session }));
    expect(session.messages.map((m) => `${m.role}:${m.content || m.toolCalls?.[0]?.name}`)).toEqual([
      'user:one',
      'assistant:echo',
      'tool:{"ok":true,"data":{"echoed":"x"}}',
      'assistant:first answer',
      'user:two',
      'assistant:second answer',
    ]);
    expect(sentMessages(harness.server, 2).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
  });

  it('does not store the input of a run that failed before the model answered', async () => {
    harness = await startHarness([{ status: 401 }]);
    const agent = new AgentBuilder('a').chatClient(harness.client).build();
    const session = agent.createSession();
    await drain(agent.run('hello', { session }));
    expect(session.messages).toEqual([]);
  });
});
