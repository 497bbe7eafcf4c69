import { ConfigError } from '@raf/core';
import { AnthropicChatClient, type AnthropicClientOptions } from './anthropic/anthropic-client.js';
import type { OpenAICompatibleClientOptions } from './openai-compatible/client-options.js';
import { OpenAICompatibleChatClient } from './openai-compatible/openai-compatible-client.js';
import { API_KEY_ENV, PROVIDER_BASE_URLS } from './provider-defaults.js';
import {
  OpenAIResponsesChatClient,
  type OpenAIResponsesClientOptions,
} from './responses/responses-client.js';

export type ProviderName = 'openai' | 'deepseek' | 'agnes' | 'anthropic' | 'custom';

export { PROVIDER_BASE_URLS } from './provider-defaults.js';

const PROVIDERS = Object.keys(API_KEY_ENV) as ProviderName[];

export type ProviderClientOptions = Omit<OpenAICompatibleClientOptions, 'provider' | 'baseURL'> & {
  baseURL?: string;
};

export type AnthropicProviderOptions = Omit<AnthropicClientOptions, 'provider'>;

/** What `createChatClient` takes: the options of every provider (each ignores the others' own). */
export type ChatClientFactoryOptions = ProviderClientOptions &
  Pick<AnthropicClientOptions, 'anthropicVersion'> &
  Pick<OpenAIResponsesClientOptions, 'store'> & {
    provider?: string;
    /** `chat` (default): Chat Completions; `responses`: the OpenAI Responses API (OpenAI-compatible providers). */
    apiType?: 'chat' | 'responses';
  };

/**
 * `OPENAI_BASE_URL`, as the official SDK and the `raf` CLI read it: for the `openai` provider
 * only. A variable exported for OpenAI's tools must never send another provider's key (a DeepSeek
 * or Anthropic key) to that server; an empty value is unset.
 */
function baseURLFromEnv(provider: ProviderName): string | undefined {
  if (provider !== 'openai') return undefined;
  return process.env.OPENAI_BASE_URL?.trim() || undefined;
}

function withDefaults<T extends { baseURL?: string; model: string; apiKey?: string }>(
  provider: ProviderName,
  options: T,
): T & { provider: ProviderName; baseURL: string } {
  const baseURL =
    options.baseURL ??
    baseURLFromEnv(provider) ??
    (provider === 'custom' ? undefined : PROVIDER_BASE_URLS[provider]);
  if (!baseURL) {
    throw new ConfigError(
      'provider "custom" needs a base URL (e.g. http://127.0.0.1:11434/v1 for Ollama, http://127.0.0.1:8000/v1 for vLLM)',
    );
  }
  try {
    new URL(baseURL);
  } catch {
    throw new ConfigError(`base URL "${baseURL}" is not a valid URL`);
  }
  if (!options.model) throw new ConfigError(`provider "${provider}" needs a model id`);
  const envName = API_KEY_ENV[provider];
  const apiKey = options.apiKey ?? (envName ? process.env[envName] : undefined);
  return { ...options, provider, baseURL, ...(apiKey !== undefined && { apiKey }) };
}

/**
 * OpenAI (`https://api.openai.com/v1`, or `OPENAI_BASE_URL` when set: a proxy or a local server);
 * the key defaults to `OPENAI_API_KEY`. An explicit `baseURL` beats the variable.
 */
export function createOpenAIClient(options: ProviderClientOptions): OpenAICompatibleChatClient {
  return new OpenAICompatibleChatClient(withDefaults('openai', options));
}

/**
 * DeepSeek (`https://api.deepseek.com`); the key defaults to `DEEPSEEK_API_KEY`. Reasoning arrives
 * as `reasoning-delta` updates; enable thinking with `extraBody: { thinking: { type: 'enabled' } }`.
 */
export function createDeepSeekClient(options: ProviderClientOptions): OpenAICompatibleChatClient {
  return new OpenAICompatibleChatClient(withDefaults('deepseek', options));
}

/**
 * Agnes AI (`https://apihub.agnes-ai.com/v1`, OpenAI-compatible); the key defaults to
 * `AGNES_API_KEY`. `reasoning_content` arrives as `reasoning-delta` updates, as with DeepSeek.
 */
export function createAgnesClient(options: ProviderClientOptions): OpenAICompatibleChatClient {
  return new OpenAICompatibleChatClient(withDefaults('agnes', options));
}

/**
 * OpenAI's Responses API (`POST /v1/responses`); the key defaults to `OPENAI_API_KEY`. Nothing is
 * stored on OpenAI's side unless `store: true`; reasoning goes back encrypted with each round.
 */
export function createOpenAIResponsesClient(
  options: ProviderClientOptions & Pick<OpenAIResponsesClientOptions, 'store'>,
): OpenAIResponsesChatClient {
  return new OpenAIResponsesChatClient(withDefaults('openai', options));
}

/** Anthropic's Messages API (`https://api.anthropic.com`); the key defaults to `ANTHROPIC_API_KEY`. */
export function createAnthropicClient(options: AnthropicProviderOptions): AnthropicChatClient {
  return new AnthropicChatClient(withDefaults('anthropic', options));
}

/** Any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio); `baseURL` is required. */
export function createCustomClient(options: ProviderClientOptions): OpenAICompatibleChatClient {
  return new OpenAICompatibleChatClient(withDefaults('custom', options));
}

function isProvider(name: string): name is ProviderName {
  return (PROVIDERS as string[]).includes(name);
}

/** Picks the factory by provider name, as the YAML `model.provider` does (default `openai`). */
export function createChatClient(
  options: AnthropicProviderOptions & { provider: 'anthropic' },
): AnthropicChatClient;
export function createChatClient(
  options: ProviderClientOptions & { provider?: Exclude<ProviderName, 'anthropic'> },
): OpenAICompatibleChatClient;
export function createChatClient(
  options: ChatClientFactoryOptions,
): OpenAICompatibleChatClient | AnthropicChatClient | OpenAIResponsesChatClient;
export function createChatClient(
  options: ChatClientFactoryOptions,
): OpenAICompatibleChatClient | AnthropicChatClient | OpenAIResponsesChatClient {
  const provider = options.provider ?? 'openai';
  const { provider: _ignored, apiType, store, ...rest } = options;
  if (!isProvider(provider)) {
    throw new ConfigError(
      `unknown model provider "${provider}"; use ${PROVIDERS.slice(0, -1).join(', ')} or custom (any OpenAI-compatible server)`,
    );
  }
  if (provider === 'anthropic') {
    if (apiType === 'responses')
      throw new ConfigError(
        'apiType responses is the OpenAI Responses API; provider anthropic speaks the Messages API',
      );
    const { echoReasoning: _openAIOnly, ...anthropic } = rest;
    return new AnthropicChatClient(withDefaults(provider, anthropic));
  }
  if (apiType === 'responses') {
    const { echoReasoning: _chatOnly, anthropicVersion: _anthropicOnly, ...responses } = rest;
    return new OpenAIResponsesChatClient({
      ...withDefaults(provider, responses),
      ...(store !== undefined && { store }),
    });
  }
  return new OpenAICompatibleChatClient(withDefaults(provider, rest));
}
