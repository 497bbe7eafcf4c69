import { ConfigError, type Declaration, type JSONValue, type PluginBuildContext } from '@raf/core';
import {
  CompressionProvider,
  EstimateTokenCounter,
  ExactTokenCounter,
  SlidingWindowStrategy,
  SummarizeStrategy,
  TokenBudgetStrategy,
} from '@raf/framework';
import { configOf, setting } from './declaration-config.js';

// `kind: compression`: loaded by the core plugin when a file declares one.

/** The provider of a `kind: compression` entry: a strategy, a token counter, a budget. */
export async function compression(decl: Declaration, context: PluginBuildContext) {
  const config = configOf(decl);
  const exact = setting(config, 'tokenCounter') === 'exact';
  const counter = exact
    ? await ExactTokenCounter.forModel(String(setting(config, 'model') ?? ''))
    : new EstimateTokenCounter();
  const strategy = String(setting(config, 'strategy') ?? decl.name ?? 'token_budget');
  const maxTokens = Number(setting(config, 'maxTokens') ?? 8000);
  const made =
    strategy === 'sliding_window'
      ? new SlidingWindowStrategy(Number(setting(config, 'windowSize') ?? 20))
      : strategy === 'token_budget'
        ? new TokenBudgetStrategy({
            toolResultEvictionThreshold: Number(setting(config, 'toolResultEvictionThreshold') ?? 0.5),
          })
        : strategy === 'summarize'
          ? summarize(config, context)
          : undefined;
  if (!made)
    throw new ConfigError(
      `compression strategy "${strategy}" is not one of sliding_window, token_budget, summarize`,
    );
  return new CompressionProvider({ strategy: made, counter, maxTokens });
}

/** An LLM summary of the oldest part, written by the agent's own model. */
function summarize(config: Record<string, JSONValue>, context: PluginBuildContext) {
  if (!context.chatClient) throw new ConfigError("compression summarize needs the agent's model");
  const share = setting(config, 'keepRecentShare');
  const prompt = setting(config, 'prompt');
  return new SummarizeStrategy({
    client: context.chatClient,
    ...(typeof share === 'number' && { keepRecentShare: share }),
    ...(typeof prompt === 'string' && { prompt }),
  });
}
