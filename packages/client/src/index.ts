export type { HttpClientOptions, TimeoutOptions } from './http/http-client-options.js';
export { DEFAULT_TIMEOUTS } from './http/http-client-options.js';
export type { OpenAICompatibleClientOptions } from './openai-compatible/client-options.js';
export { OpenAICompatibleChatClient } from './openai-compatible/openai-compatible-client.js';
export type { ProviderClientOptions, ProviderName } from './openai-compatible/providers.js';
export {
  createChatClient,
  createCustomClient,
  createDeepSeekClient,
  createOpenAIClient,
  PROVIDER_BASE_URLS,
} from './openai-compatible/providers.js';
export type { RetryOptions } from './retry/retry-policy.js';
export { DEFAULT_RETRY } from './retry/retry-policy.js';
