import type { ContextResult, IContextProvider, InvokingContext } from '@raf/core';
import type { ICompressionStrategy, ITokenCounter } from './compression-types.js';

export interface CompressionProviderOptions {
  strategy: ICompressionStrategy;
  counter: ITokenCounter;
  /** Compress when the context messages exceed this many tokens. */
  maxTokens: number;
  name?: string;
}

/**
 * Compression as a context provider (`kind: compression`): declared last, it replaces the
 * accumulated context messages with a compressed copy when they exceed `maxTokens`.
 */
export class CompressionProvider implements IContextProvider {
  readonly kind = 'compression';
  readonly injectsTools = false;
  readonly name: string;

  constructor(private readonly options: CompressionProviderOptions) {
    this.name = options.name ?? `compression:${options.strategy.name}`;
  }

  async onInvoking({ messages, signal }: InvokingContext): Promise<ContextResult> {
    const { counter, maxTokens, strategy } = this.options;
    if (counter.countTokens(messages) <= maxTokens) return {};
    return {
      messages: await strategy.compress(messages, maxTokens, counter, { signal }),
      replaceMessages: true,
    };
  }
}
