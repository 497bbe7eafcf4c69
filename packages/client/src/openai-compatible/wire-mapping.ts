import type { Usage } from '@raf/core';
import type { WireUsage } from './wire-types.js';

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Reads OpenAI (`*_details`) and DeepSeek (top-level cache fields) usage alike. */
export function mapUsage(raw: WireUsage): Usage {
  const promptTokens = count(raw.prompt_tokens) ?? 0;
  const completionTokens = count(raw.completion_tokens) ?? 0;
  const usage: Usage = {
    promptTokens,
    completionTokens,
    totalTokens: count(raw.total_tokens) ?? promptTokens + completionTokens,
  };
  const hit = count(raw.prompt_cache_hit_tokens) ?? count(raw.prompt_tokens_details?.cached_tokens);
  const miss = count(raw.prompt_cache_miss_tokens);
  const reasoning = count(raw.completion_tokens_details?.reasoning_tokens);
  if (hit !== undefined) usage.promptCacheHitTokens = hit;
  if (miss !== undefined) usage.promptCacheMissTokens = miss;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}
