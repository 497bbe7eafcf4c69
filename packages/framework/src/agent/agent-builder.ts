import { ConfigError, type IChatClient, type IContextProvider, type ITool } from '@raf/core';
import type { ICompressionStrategy, ITokenCounter } from '../compression/compression-types.js';
import { EstimateTokenCounter } from '../compression/token-counters.js';
import { ChatClientBuilder, type ChatClientDecorator } from '../pipeline/chat-client-builder.js';
import { FunctionInvokingChatClient } from '../pipeline/function-invoking-chat-client.js';
import { InMemoryHistoryProvider, isHistoryProvider } from '../providers/in-memory-history-provider.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { type AgentCompression, ChatClientAgent } from './chat-client-agent.js';

/**
 * Builds a `ChatClientAgent`. The history provider is always there and always first. The client
 * is wrapped in the tool loop whenever the agent can have tools: static tools, or any declared
 * provider that may inject them (`injectsTools` not false). Decorators added with `useDecorator`
 * wrap the tool loop (the last one added is the outermost).
 */
export class AgentBuilder {
  private client: IChatClient | undefined;
  private agentInstructions: string | undefined;
  private agentDescription: string | undefined;
  private readonly registry = new ToolRegistry();
  private readonly providers: IContextProvider[] = [];
  private history: InMemoryHistoryProvider = new InMemoryHistoryProvider();
  private rounds = 10;
  private compression: AgentCompression | undefined;
  private readonly decorators: ChatClientDecorator[] = [];

  constructor(private readonly name = 'agent') {}

  chatClient(client: IChatClient): this {
    this.client = client;
    return this;
  }

  instructions(text: string): this {
    this.agentInstructions = text;
    return this;
  }

  description(text: string): this {
    this.agentDescription = text;
    return this;
  }

  withTool(tool: ITool): this {
    this.registry.register(tool);
    return this;
  }

  withTools(tools: Iterable<ITool>): this {
    for (const tool of tools) this.registry.register(tool);
    return this;
  }

  /** Adds a provider after the ones added before (declaration order is execution order). */
  withContextProvider(provider: IContextProvider): this {
    if (isHistoryProvider(provider)) return this.withHistoryProvider(provider);
    this.providers.push(provider);
    return this;
  }

  /** Replaces the implicit history provider (there is never a second one); it stays first. */
  withHistoryProvider(provider: InMemoryHistoryProvider): this {
    this.history = provider;
    return this;
  }

  maxToolRounds(rounds: number): this {
    if (!Number.isInteger(rounds) || rounds < 1)
      throw new ConfigError(`maxToolRounds must be a whole number ≥ 1, got ${rounds}`);
    this.rounds = rounds;
    return this;
  }

  /** Compresses the prompt when it exceeds the budget (the model's input budget unless given). */
  withCompression(
    strategy: ICompressionStrategy,
    options: { counter?: ITokenCounter; inputBudget?: number } = {},
  ): this {
    this.compression = { strategy, counter: options.counter ?? new EstimateTokenCounter() };
    if (options.inputBudget !== undefined) this.compression.inputBudget = options.inputBudget;
    return this;
  }

  useDecorator(decorator: ChatClientDecorator): this {
    this.decorators.push(decorator);
    return this;
  }

  /** Whether the built agent will run tools: static tools, or a provider that may inject them. */
  get needsToolLoop(): boolean {
    return this.registry.size > 0 || this.providers.some((p) => p.injectsTools !== false);
  }

  build(): ChatClientAgent {
    if (!this.client)
      throw new ConfigError('chat_client is required: call .chatClient(client) before .build()');
    const toolLoop = this.needsToolLoop;
    const tools = this.registry.list();
    const pipeline = ChatClientBuilder.leaf(this.client);
    if (toolLoop)
      pipeline.use((inner) => new FunctionInvokingChatClient(inner, tools, { maxToolRounds: this.rounds }));
    for (const decorator of this.decorators) pipeline.use(decorator);
    return new ChatClientAgent({
      name: this.name,
      ...(this.agentDescription !== undefined && { description: this.agentDescription }),
      ...(this.agentInstructions !== undefined && { instructions: this.agentInstructions }),
      chatClient: pipeline.build(),
      tools,
      history: this.history,
      contextProviders: [...this.providers],
      toolLoop,
      maxToolRounds: this.rounds,
      ...(this.compression && { compression: this.compression }),
    });
  }
}
