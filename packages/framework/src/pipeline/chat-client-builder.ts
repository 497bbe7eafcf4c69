import {
  type AgentResponseUpdate,
  type ChatClientRunOptions,
  type ChatMessage,
  ConfigError,
  type ContentCapabilities,
  type IChatClient,
  type ModelMetadata,
} from '@raf/core';
import { singletonBatches, updateBatches } from '@raf/core/internal';

/** Passes every call through to `innerClient`; extend it to write a decorator. */
export class DelegatingChatClient implements IChatClient {
  constructor(readonly innerClient: IChatClient) {}

  get modelId(): string {
    return this.innerClient.modelId;
  }

  get provider(): string | undefined {
    return this.innerClient.provider;
  }

  get modelMetadata(): ModelMetadata | undefined {
    return this.innerClient.modelMetadata;
  }

  get capabilities(): ContentCapabilities | undefined {
    return this.innerClient.capabilities;
  }

  run(messages: readonly ChatMessage[], options?: ChatClientRunOptions): AsyncIterable<AgentResponseUpdate> {
    return this.innerClient.run(messages, options);
  }

  /**
   * The inner client's batches, passed through. A subclass that overrides only `run` is read
   * through its `run`, so a decorator never loses sight of an update.
   */
  runBatches(
    messages: readonly ChatMessage[],
    options?: ChatClientRunOptions,
  ): AsyncIterable<readonly AgentResponseUpdate[]> {
    if (this.run !== DelegatingChatClient.prototype.run) return singletonBatches(this.run(messages, options));
    return updateBatches(this.innerClient, messages, options);
  }
}

export type ChatClientDecorator = (inner: IChatClient) => IChatClient;

/**
 * Builds a pipeline from a leaf client and decorators. Each decorator wraps the result of the
 * ones registered before it, so **the last one registered is the outermost**: it sees a call
 * first and the answer last. `leaf(c).use(a).use(b).build()` is `b(a(c))`.
 */
export class ChatClientBuilder {
  private readonly decorators: ChatClientDecorator[] = [];

  private constructor(private readonly leafClient: IChatClient | undefined) {}

  static leaf(client: IChatClient): ChatClientBuilder {
    return new ChatClientBuilder(client);
  }

  use(decorator: ChatClientDecorator): this {
    this.decorators.push(decorator);
    return this;
  }

  build(): IChatClient {
    if (!this.leafClient) throw new ConfigError('leaf IChatClient is required');
    return this.decorators.reduce<IChatClient>((client, decorate) => decorate(client), this.leafClient);
  }
}

/** Walks `innerClient` links from the outermost client; the first one that `is` matches. */
export function findInPipeline<T extends IChatClient>(
  client: IChatClient,
  is: (candidate: IChatClient) => candidate is T,
): T | undefined {
  for (let current: IChatClient | undefined = client; current; current = current.innerClient) {
    if (is(current)) return current;
  }
  return undefined;
}
