/** The parts of the Chat Completions wire format this client reads (all optional: servers vary). */
export interface WireToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
}

export interface WireDelta {
  role?: string;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: WireToolCallDelta[] | null;
}

export interface WireChunk {
  id?: string;
  model?: string;
  choices?: { index?: number; delta?: WireDelta; message?: WireDelta; finish_reason?: string | null }[];
  usage?: WireUsage | null;
  error?: { message?: string; type?: string; code?: string | number } | string;
}
