import {
  type AgentResponseUpdate,
  ChatClientError,
  type ChatClientRunOptions,
  type ChatMessage,
  type IChatClient,
  TimeoutError,
} from '@raf/core';
import { flattenBatches, updateBatches } from '@raf/core/internal';

/**
 * A failure that another model may not have: the provider kept answering 429/5xx, refused the
 * connection, or never answered, after the client's own retries. A 400 (the request itself) or a
 * call that ran out of its total time would fail the same way on the next model.
 */
export function isFallbackWorthy(error: unknown): boolean {
  if (ChatClientError.isInstance(error)) return error.retryable;
  if (TimeoutError.isInstance(error)) return error.phase === 'connect' || error.phase === 'firstChunk';
  return false;
}

const label = (client: IChatClient) => `${client.provider ?? 'model'}/${client.modelId}`;

/**
 * `model.fallback` (SPEC §15): the models in order. A model whose retries are spent on a failure
 * before it answered anything hands the request to the next, with a `warning` update naming the
 * switch; a failure after the answer began (text already streamed) is the answer's, never retried
 * elsewhere. The last model's failure is thrown as it came.
 */
export class FallbackChatClient implements IChatClient {
  readonly modelId: string;
  readonly provider?: string;

  constructor(readonly clients: readonly IChatClient[]) {
    const [first] = clients;
    if (!first) throw new TypeError('FallbackChatClient needs at least one client');
    this.modelId = first.modelId;
    if (first.provider !== undefined) this.provider = first.provider;
  }

  get innerClient(): IChatClient {
    return this.clients[0] as IChatClient;
  }

  get modelMetadata() {
    return this.clients[0]?.modelMetadata;
  }

  get capabilities() {
    return this.clients[0]?.capabilities;
  }

  run(messages: readonly ChatMessage[], options?: ChatClientRunOptions): AsyncIterable<AgentResponseUpdate> {
    return flattenBatches(this.runBatches(messages, options));
  }

  async *runBatches(
    messages: readonly ChatMessage[],
    options?: ChatClientRunOptions,
  ): AsyncGenerator<readonly AgentResponseUpdate[], void, undefined> {
    for (let index = 0; index < this.clients.length; index++) {
      const client = this.clients[index] as IChatClient;
      let answered = false;
      try {
        for await (const batch of updateBatches(client, messages, options)) {
          answered = true;
          yield batch;
        }
        return;
      } catch (error) {
        const next = this.clients[index + 1];
        if (answered || !next || options?.signal?.aborted || !isFallbackWorthy(error)) throw error;
        yield [
          {
            type: 'warning',
            code: 'RAF_MODEL_FALLBACK',
            message: `${label(client)} failed (${(error as Error).message}); trying ${label(next)}`,
          },
        ];
      }
    }
  }

  /** Closes every model's client that can be closed. */
  async close(): Promise<void> {
    await Promise.all(
      this.clients.map(
        (client) => (client as { close?: () => Promise<void> }).close?.() ?? Promise.resolve(),
      ),
    );
  }
}
