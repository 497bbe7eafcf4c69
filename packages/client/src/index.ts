export type { AnthropicClientOptions } from './anthropic/anthropic-client.js';
export { AnthropicChatClient } from './anthropic/anthropic-client.js';
export { FallbackChatClient } from './fallback/fallback-chat-client.js';
export { preloadHttp } from './http/http-chat-client.js';
export type { HttpClientOptions, TimeoutOptions } from './http/http-client-options.js';
export { DEFAULT_TIMEOUTS } from './http/http-client-options.js';
export { delayParserTierUp } from './http/parser-tier-up.js';
export type { OpenAICompatibleClientOptions } from './openai-compatible/client-options.js';
export { OpenAICompatibleChatClient } from './openai-compatible/openai-compatible-client.js';
export type {
  AnthropicProviderOptions,
  ChatClientFactoryOptions,
  ProviderClientOptions,
  ProviderName,
} from './providers.js';
export {
  createAgnesClient,
  createAnthropicClient,
  createChatClient,
  createCustomClient,
  createDeepSeekClient,
  createOpenAIClient,
  createOpenAIResponsesClient,
  PROVIDER_BASE_URLS,
} from './providers.js';
export type { OpenAIResponsesClientOptions } from './responses/responses-client.js';
export { OpenAIResponsesChatClient } from './responses/responses-client.js';
export type { RetryOptions } from './retry/retry-policy.js';
export { DEFAULT_RETRY } from './retry/retry-policy.js';
