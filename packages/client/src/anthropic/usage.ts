import type { Usage } from '@raf/core';
import type { AnthropicWireUsage } from './wire-types.js';

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Anthropic counts cached prompt tokens apart from `input_tokens`: the prompt is all three, the
 * cache hits are `cache_read_input_tokens`, and the rest (new input and cache writes) the misses.
 */
export function mapAnthropicUsage(raw: AnthropicWireUsage): Usage {
  const input = count(raw.input_tokens) ?? 0;
  const read = count(raw.cache_read_input_tokens);
  const written = count(raw.cache_creation_input_tokens);
  const promptTokens = input + (read ?? 0) + (written ?? 0);
  const completionTokens = count(raw.output_tokens) ?? 0;
  const usage: Usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  if (read !== undefined || written !== undefined) {
    usage.promptCacheHitTokens = read ?? 0;
    usage.promptCacheMissTokens = input + (written ?? 0);
  }
  return usage;
}

/** `message_delta` usage is cumulative: its counts replace those of `message_start`. */
export function mergeUsage(into: AnthropicWireUsage, from: AnthropicWireUsage): void {
  for (const key of Object.keys(from) as (keyof AnthropicWireUsage)[]) {
    const value = count(from[key]);
    if (value !== undefined) into[key] = value;
  }
}
