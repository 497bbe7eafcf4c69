import type { ContentCapabilities } from '@raf/core';
import type { ProviderName } from './providers.js';

/** Anthropic's API; the client appends /v1/messages, as Anthropic's own SDKs do. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

export const PROVIDER_BASE_URLS: Readonly<Record<Exclude<ProviderName, 'custom'>, string>> = {
  openai: 'https://api.openai.com/v1',
  // DeepSeek serves the API without a /v1 prefix.
  deepseek: 'https://api.deepseek.com',
  agnes: 'https://apihub.agnes-ai.com/v1',
  anthropic: ANTHROPIC_BASE_URL,
};

export const API_KEY_ENV: Readonly<Record<ProviderName, string | undefined>> = {
  openai: 'OPENAI_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  agnes: 'AGNES_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  custom: undefined,
};

/**
 * Why a request would go to a provider's own hosted API with no credentials (it always answers
 * 401), or undefined. Said before any request, as a configuration problem: without it a run
 * without its key retries or fails as a network or HTTP error. A proxy or a local server (another
 * base URL), or an auth header given by hand, is left alone.
 */
export function missingKeyProblem(
  provider: string,
  baseURL: string | undefined,
  apiKey: string | undefined,
  headers: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (apiKey) return undefined;
  const hosted = PROVIDER_BASE_URLS[provider as Exclude<ProviderName, 'custom'>];
  if (!hosted || (baseURL !== undefined && baseURL.replace(/\/+$/, '') !== hosted)) return undefined;
  if (hasAuthHeader(headers)) return undefined;
  const env = API_KEY_ENV[provider as ProviderName];
  return `provider "${provider}" has no API key for ${hosted}: set ${env} or the model's connection apiKey (or point it at another server with a base URL)`;
}

/** Whether headers carry credentials of their own (`Authorization`, `x-api-key`, `api-key`). */
export function hasAuthHeader(headers: Readonly<Record<string, string>> | undefined): boolean {
  return Object.keys(headers ?? {}).some((h) => /^(authorization|x-api-key|api-key)$/i.test(h));
}

// OpenAI models that read images and PDFs: the GPT-4o/4.1/5 families, the o-series (not o1-mini,
// o3-mini) and gpt-4-turbo. Older and mini reasoning models take text only.
const OPENAI_VISION = /^(chatgpt-4o|gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-4-turbo|o1(?!-mini)|o3(?!-mini)|o4)/;

/**
 * What a provider's model takes besides text when the configuration does not say: Claude models
 * read images and PDFs; OpenAI's by family; others (DeepSeek, a local or unknown server) text only,
 * so a part they cannot read fails before the request instead of as an HTTP 400 (or silently).
 */
export function defaultCapabilities(provider: string, model: string): ContentCapabilities {
  if (provider === 'anthropic') return /^claude-/.test(model) ? { images: true, files: true } : {};
  if (provider === 'openai') return OPENAI_VISION.test(model) ? { images: true, files: true } : {};
  return {};
}
