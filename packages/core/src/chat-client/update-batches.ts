import type { ChatMessage } from '../messages/chat-message.js';
import type { AgentResponseUpdate } from '../updates/agent-response-update.js';
import type { ChatClientRunOptions, IChatClient } from './chat-client.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });
const EMPTY: readonly never[] = Object.freeze([]);

/**
 * Yields the items of each batch one by one. Items already received are handed out without
 * touching the source (a resolved promise each, no generator resume). `return` (a `break` in the
 * consumer) and `throw` reach the source, so its `finally` blocks run.
 */
class FlatIterator<T> implements AsyncIterableIterator<T> {
  private batch: readonly T[] = EMPTY;
  private index = 0;
  private done = false;

  constructor(private readonly source: AsyncIterator<readonly T[]>) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.index < this.batch.length) {
      return Promise.resolve({ value: this.batch[this.index++] as T, done: false });
    }
    return this.pull();
  }

  private async pull(): Promise<IteratorResult<T>> {
    while (!this.done) {
      const result = await this.source.next();
      if (result.done) break;
      if (result.value.length > 0) {
        this.batch = result.value;
        this.index = 1;
        return { value: result.value[0] as T, done: false };
      }
    }
    this.done = true;
    this.batch = EMPTY;
    return DONE;
  }

  async return(value?: unknown): Promise<IteratorResult<T>> {
    this.batch = EMPTY;
    if (!this.done) {
      this.done = true;
      await this.source.return?.(value);
    }
    return DONE;
  }

  async throw(error?: unknown): Promise<IteratorResult<T>> {
    this.batch = EMPTY;
    if (this.done || !this.source.throw) throw error;
    this.done = true;
    await this.source.throw(error);
    return DONE;
  }
}

/** A stream of batches read item by item (`IChatClient.run` of a client that implements `runBatches`). */
export function flattenBatches<T>(batches: AsyncIterable<readonly T[]>): AsyncIterableIterator<T> {
  return new FlatIterator(batches[Symbol.asyncIterator]());
}

/** Each update as a batch of one: the fallback for clients without `runBatches`. */
export async function* singletonBatches<T>(
  items: AsyncIterable<T>,
): AsyncGenerator<readonly T[], void, undefined> {
  for await (const item of items) yield [item];
}

/** The client's updates in batches: `runBatches` when it has it, otherwise `run` one update at a time. */
export function updateBatches(
  client: IChatClient,
  messages: readonly ChatMessage[],
  options?: ChatClientRunOptions,
): AsyncIterable<readonly AgentResponseUpdate[]> {
  return client.runBatches
    ? client.runBatches(messages, options)
    : singletonBatches(client.run(messages, options));
}
