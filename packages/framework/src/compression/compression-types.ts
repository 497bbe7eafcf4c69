import type { ChatMessage } from '@raf/core';

export interface ITokenCounter {
  countTokens(messages: readonly ChatMessage[]): number;
  countTextTokens(text: string): number;
}

export interface CompressionContext {
  signal?: AbortSignal;
}

/** Shrinks a message list towards `budget` tokens. Never drops a system message, never splits a tool call from its results. */
export interface ICompressionStrategy {
  readonly name: string;
  compress(
    messages: readonly ChatMessage[],
    budget: number,
    counter: ITokenCounter,
    context?: CompressionContext,
  ): Promise<ChatMessage[]> | ChatMessage[];
}
