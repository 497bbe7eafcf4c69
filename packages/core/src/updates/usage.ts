/** Token usage of one model call (or the sum of several). */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens served from the provider's cache (OpenAI `cached_tokens`, DeepSeek `prompt_cache_hit_tokens`). */
  promptCacheHitTokens?: number;
  /** Prompt tokens not served from cache (DeepSeek `prompt_cache_miss_tokens`). */
  promptCacheMissTokens?: number;
  /** Hidden reasoning tokens (OpenAI `reasoning_tokens`). */
  reasoningTokens?: number;
}

/** Share of prompt tokens that hit the cache: 0 with no hits; hit/(hit+miss) when miss is known. */
export function cacheHitRatio(usage: Usage): number {
  const hit = usage.promptCacheHitTokens ?? 0;
  if (hit === 0) return 0;
  if (usage.promptCacheMissTokens !== undefined) return hit / (hit + usage.promptCacheMissTokens);
  return usage.promptTokens > 0 ? hit / usage.promptTokens : 0;
}

function addOptional(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

/** Sums two usages (for multi-round runs); optional counters stay absent when both lack them. */
export function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return { ...b };
  const sum: Usage = {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  const hit = addOptional(a.promptCacheHitTokens, b.promptCacheHitTokens);
  const miss = addOptional(a.promptCacheMissTokens, b.promptCacheMissTokens);
  const reasoning = addOptional(a.reasoningTokens, b.reasoningTokens);
  if (hit !== undefined) sum.promptCacheHitTokens = hit;
  if (miss !== undefined) sum.promptCacheMissTokens = miss;
  if (reasoning !== undefined) sum.reasoningTokens = reasoning;
  return sum;
}
