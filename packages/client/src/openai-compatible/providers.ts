import { ConfigError } from '@raf/core';
import type { OpenAICompatibleClientOptions } from './client-options.js';
import { OpenAICompatibleChatClient } from './openai-compatible-client.js';

export type ProviderName = 'openai' | 'deepseek' | 'custom';

export const PROVIDER_BASE_URLS: Readonly<Record<Exclude<ProviderName, 'custom'>, string>> = {
  openai: 'https://api.openai.com/v1',
  // DeepSeek serves the API without a /v1 prefix.
  deepseek: 'https://api.deepseek.com',
};

const API_KEY_ENV: Record<ProviderName, string | undefined> = {
  openai: 'OPENAI_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  custom: undefined,
};

export type ProviderClientOptions = Omit<OpenAICompatibleClientOptions, 'provider' | 'baseURL'> & {
  baseURL?: string;
};

function withDefaults(provider: ProviderName, options: ProviderClientOptions): OpenAICompatibleClientOptions {
  const baseURL = options.baseURL ?? (provider === 'custom' ? undefined : PROVIDER_BASE_URLS[provider]);
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

/** OpenAI (`https://api.openai.com/v1`); the key defaults to `OPENAI_API_KEY`. */
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

/** Any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio); `baseURL` is required. */
export function createCustomClient(options: ProviderClientOptions): OpenAICompatibleChatClient {
  return new OpenAICompatibleChatClient(withDefaults('custom', options));
}

/** Picks the factory by provider name, as the YAML `model.provider` does. */
export function createChatClient(
  options: ProviderClientOptions & { provider?: string },
): OpenAICompatibleChatClient {
  const provider = options.provider ?? 'openai';
  const { provider: _ignored, ...rest } = options;
  if (provider === 'openai' || provider === 'deepseek' || provider === 'custom') {
    return new OpenAICompatibleChatClient(withDefaults(provider, rest));
  }
  throw new ConfigError(
    `unknown model provider "${provider}"; use openai, deepseek or custom (any OpenAI-compatible server)`,
  );
}
