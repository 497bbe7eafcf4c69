export { DEFAULT_TIMEOUTS } from './openai-compatible/client-options.js';
export type { OpenAICompatibleClientOptions, TimeoutOptions } from './openai-compatible/client-options.js';
export { OpenAICompatibleChatClient } from './openai-compatible/openai-compatible-client.js';
export {
  PROVIDER_BASE_URLS,
  createChatClient,
  createCustomClient,
  createDeepSeekClient,
  createOpenAIClient,
} from './openai-compatible/providers.js';
export type { ProviderClientOptions, ProviderName } from './openai-compatible/providers.js';
export { buildRequestBody } from './openai-compatible/request-body.js';
export { mapFinishReason, mapUsage } from './openai-compatible/wire-mapping.js';
export { DEFAULT_RETRY, backoffDelay, isRetryableStatus, parseRetryAfter } from './retry/retry-policy.js';
export type { RetryOptions } from './retry/retry-policy.js';
