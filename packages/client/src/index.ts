export type { OpenAICompatibleClientOptions, TimeoutOptions } from './openai-compatible/client-options.js';
export { DEFAULT_TIMEOUTS } from './openai-compatible/client-options.js';
export { OpenAICompatibleChatClient } from './openai-compatible/openai-compatible-client.js';
export type { ProviderClientOptions, ProviderName } from './openai-compatible/providers.js';
export {
  createChatClient,
  createCustomClient,
  createDeepSeekClient,
  createOpenAIClient,
  PROVIDER_BASE_URLS,
} from './openai-compatible/providers.js';
export { buildRequestBody } from './openai-compatible/request-body.js';
export { mapFinishReason, mapUsage } from './openai-compatible/wire-mapping.js';
export type { RetryOptions } from './retry/retry-policy.js';
export { backoffDelay, DEFAULT_RETRY, isRetryableStatus, parseRetryAfter } from './retry/retry-policy.js';
