import { assistantMessage, type ChatMessage } from '@raf/core';
import type { ICompressionStrategy, ITokenCounter } from './compression-types.js';
import { flatten, groupMessages, type MessageGroup } from './message-groups.js';

/** Keeps every system message and the newest `windowSize` other messages, cut on a group boundary. */
export class SlidingWindowStrategy implements ICompressionStrategy {
  readonly name = 'sliding_window';

  constructor(readonly windowSize: number) {
    if (!Number.isInteger(windowSize) || windowSize < 1)
      throw new RangeError('windowSize must be a whole number ≥ 1');
  }

  compress(messages: readonly ChatMessage[]): ChatMessage[] {
    const groups = groupMessages(messages).filter((g) => !g.orphan);
    const kept: MessageGroup[] = [];
    let count = 0;
    for (let i = groups.length - 1; i >= 0; i--) {
      const group = groups[i]!;
      if (group.system) continue;
      // The newest group always stays, even when it alone is larger than the window.
      if (kept.length > 0 && count + group.messages.length > this.windowSize) break;
      kept.unshift(group);
      count += group.messages.length;
    }
    const keptSet = new Set(kept);
    return flatten(groups.filter((g) => g.system || keptSet.has(g)));
  }
}

export interface TokenBudgetOptions {
  /** Above this share of the budget, old tool calls and results are folded into one line (default 0.5). */
  toolResultEvictionThreshold?: number;
}

/**
 * Step 1: over `threshold × budget`, every tool-call group before the last user message becomes
 * `[Earlier tool calls: N call(s) were made and completed]`. Step 2: the oldest groups go, one at
 * a time, until the rest fits (system messages and the newest group always stay).
 */
export class TokenBudgetStrategy implements ICompressionStrategy {
  readonly name = 'token_budget';
  readonly toolResultEvictionThreshold: number;

  constructor(options: TokenBudgetOptions = {}) {
    this.toolResultEvictionThreshold = options.toolResultEvictionThreshold ?? 0.5;
  }

  compress(messages: readonly ChatMessage[], budget: number, counter: ITokenCounter): ChatMessage[] {
    let groups = groupMessages(messages).filter((g) => !g.orphan);
    if (counter.countTokens(flatten(groups)) > this.toolResultEvictionThreshold * budget) {
      let lastUser = -1;
      groups.forEach((g, i) => {
        if (g.messages[0]?.role === 'user') lastUser = i;
      });
      groups = groups.map((g, i) =>
        g.toolCalls > 0 && i < lastUser
          ? {
              system: false,
              toolCalls: 0,
              messages: [
                assistantMessage(`[Earlier tool calls: ${g.toolCalls} call(s) were made and completed]`),
              ],
            }
          : g,
      );
    }
    while (counter.countTokens(flatten(groups)) > budget) {
      const oldest = groups.findIndex((g) => !g.system);
      const lastNonSystem = groups.findLastIndex((g) => !g.system);
      if (oldest === -1 || oldest === lastNonSystem) break;
      groups.splice(oldest, 1);
    }
    return flatten(groups);
  }
}

/** Runs strategies in order and stops as soon as the messages fit the budget. */
export class CompressionPipeline implements ICompressionStrategy {
  readonly name = 'pipeline';
  private readonly strategies: ICompressionStrategy[] = [];

  constructor(strategies: ICompressionStrategy[] = []) {
    this.strategies.push(...strategies);
  }

  addStrategy(strategy: ICompressionStrategy): this {
    this.strategies.push(strategy);
    return this;
  }

  async compress(
    messages: readonly ChatMessage[],
    budget: number,
    counter: ITokenCounter,
    context?: Parameters<ICompressionStrategy['compress']>[3],
  ): Promise<ChatMessage[]> {
    let current = [...messages];
    for (const strategy of this.strategies) {
      if (counter.countTokens(current) <= budget) break;
      current = await strategy.compress(current, budget, counter, context);
    }
    return current;
  }
}
