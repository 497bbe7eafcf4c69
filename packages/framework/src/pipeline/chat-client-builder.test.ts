import { ScriptedChatClient } from '@raf/client/testing';
import {
  type AgentResponseUpdate,
  type ChatClientRunOptions,
  type ChatMessage,
  ConfigError,
  type IChatClient,
  userMessage,
} from '@raf/core';
import { updateBatches } from '@raf/core/internal';
import { describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { echoTool } from '../test-support/harness.js';
import { ChatClientBuilder, DelegatingChatClient, findInPipeline } from './chat-client-builder.js';

class Tracing extends DelegatingChatClient {
  constructor(
    inner: IChatClient,
    readonly label: string,
    readonly log: string[],
  ) {
    super(inner);
  }
  override async *run(
    messages: readonly ChatMessage[],
    options?: ChatClientRunOptions,
  ): AsyncIterable<AgentResponseUpdate> {
    this.log.push(`enter ${this.label}`);
    yield* this.innerClient.run(messages, options);
    this.log.push(`leave ${this.label}`);
  }
}

describe('ChatClientBuilder', () => {
  it('makes the last registered decorator the outermost', async () => {
    const log: string[] = [];
    const client = ChatClientBuilder.leaf(new ScriptedChatClient([{ text: 'x' }]))
      .use((inner) => new Tracing(inner, 'first', log))
      .use((inner) => new Tracing(inner, 'second', log))
      .build();
    for await (const _ of client.run([userMessage('x')])) void _;
    expect(log).toEqual(['enter second', 'enter first', 'leave first', 'leave second']);
    expect((client as Tracing).label).toBe('second');
    expect(
      findInPipeline(client, (c): c is Tracing => c instanceof Tracing && c.label === 'first')?.label,
    ).toBe('first');
  });

  it('needs a leaf', () => {
    expect(() => ChatClientBuilder.leaf(undefined as unknown as IChatClient).build()).toThrow(
      'leaf IChatClient is required',
    );
  });
});

describe('AgentBuilder', () => {
  it('wraps only the model in user decorators: the leaf client sits right inside them', () => {
    const leaf = new ScriptedChatClient();
    const agent = new AgentBuilder('a')
      .chatClient(leaf)
      .withTool(echoTool())
      .useDecorator((inner) => new Tracing(inner, 'outer', []))
      .build();
    expect(agent.chatClient).toBeInstanceOf(Tracing);
    expect(agent.chatClient.innerClient).toBe(leaf);
    expect(agent.maxToolRounds).toBe(10);
  });

  it('passes each model call of a run through the decorators, with request data only (one per step)', async () => {
    const log: string[] = [];
    const seen: ChatClientRunOptions[] = [];
    const leaf = new ScriptedChatClient([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'a' } }] },
      { toolCalls: [{ id: 'c2', name: 'echo', arguments: { text: 'b' } }] },
      { text: 'done' },
    ]);
    const agent = new AgentBuilder('a')
      .chatClient(leaf)
      .withTool(echoTool())
      .useDecorator((inner) => {
        const tracing = new Tracing(inner, 'model', log);
        const run = tracing.run.bind(tracing);
        tracing.run = (messages, options) => {
          if (options) seen.push(options);
          return run(messages, options);
        };
        return tracing;
      })
      .build();
    expect((await agent.generate('go')).text).toBe('done');
    expect(log).toEqual([
      'enter model',
      'leave model',
      'enter model',
      'leave model',
      'enter model',
      'leave model',
    ]);
    for (const options of seen) expect(Object.keys(options).sort()).toEqual(['tools']);
  });

  it('explains what is missing or wrong', () => {
    expect(() => new AgentBuilder('a').build()).toThrow(ConfigError);
    expect(() => new AgentBuilder('a').build()).toThrow(/chat_client is required/);
    expect(() => new AgentBuilder('a').withTool(echoTool()).withTool(echoTool())).toThrow(
      'tool "echo" is registered twice',
    );
    expect(() => new AgentBuilder('a').maxToolRounds(0)).toThrow(/maxToolRounds must be a whole number/);
  });
});

describe('DelegatingChatClient batches', () => {
  const batching: IChatClient = {
    modelId: 'm',
    run: () => {
      throw new Error('the batching path must be used');
    },
    async *runBatches() {
      yield [{ type: 'text-delta', delta: 'a' } as AgentResponseUpdate, { type: 'text-delta', delta: 'b' }];
      yield [{ type: 'finish', reason: 'stop' } as AgentResponseUpdate];
    },
  };

  it('passes the inner batches through untouched', async () => {
    const batches: (readonly AgentResponseUpdate[])[] = [];
    for await (const batch of updateBatches(new DelegatingChatClient(batching), [userMessage('x')])) {
      batches.push(batch);
    }
    expect(batches.map((b) => b.length)).toEqual([2, 1]);
  });

  it('reads a subclass that overrides only run through its run, so it sees every update', async () => {
    class Upper extends DelegatingChatClient {
      override async *run(): AsyncIterable<AgentResponseUpdate> {
        yield { type: 'text-delta', delta: 'OVERRIDDEN' };
        yield { type: 'finish', reason: 'stop' };
      }
    }
    const updates: AgentResponseUpdate[] = [];
    for await (const batch of updateBatches(new Upper(batching), [userMessage('x')])) updates.push(...batch);
    expect(updates).toEqual([
      { type: 'text-delta', delta: 'OVERRIDDEN' },
      { type: 'finish', reason: 'stop' },
    ]);
  });
});
