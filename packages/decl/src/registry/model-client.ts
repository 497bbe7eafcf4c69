import { createChatClient } from '@raf/client';
import type { ContentCapabilities, Declaration, ModelOptions, PluginBuildContext } from '@raf/core';

// The HTTP providers' client: loaded by the core plugin when a file names one (`raf validate` of
// a replayed agent never loads the HTTP client).

/**
 * The environment variables of each provider. They fill only what the YAML leaves empty, and only
 * for their own provider: an `OPENAI_BASE_URL` exported for another tool never redirects DeepSeek.
 */
const PROVIDER_ENV: Readonly<Record<string, { apiKey: string; baseURL: string }>> = {
  openai: { apiKey: 'OPENAI_API_KEY', baseURL: 'OPENAI_BASE_URL' },
  deepseek: { apiKey: 'DEEPSEEK_API_KEY', baseURL: 'DEEPSEEK_BASE_URL' },
  agnes: { apiKey: 'AGNES_API_KEY', baseURL: 'AGNES_BASE_URL' },
  anthropic: { apiKey: 'ANTHROPIC_API_KEY', baseURL: 'ANTHROPIC_BASE_URL' },
};

export function modelClient(decl: Declaration, context: PluginBuildContext) {
  const connection = (decl.connection ?? {}) as {
    kind?: string;
    endpoint?: string;
    apiKey?: string;
    headers?: Record<string, string>;
  };
  const provider = String(decl.kind);
  const names = PROVIDER_ENV[provider];
  const endpoint = connection.endpoint || (names && context.env[names.baseURL]) || undefined;
  const apiKey =
    connection.apiKey ||
    (names && connection.kind !== 'anonymous' ? context.env[names.apiKey] : undefined) ||
    undefined;
  const options = (decl.options ?? {}) as Record<string, unknown>;
  const modelOptions: ModelOptions = {};
  if (typeof options.temperature === 'number') modelOptions.temperature = options.temperature;
  if (typeof options.maxOutputTokens === 'number') modelOptions.maxTokens = options.maxOutputTokens;
  if (typeof options.topP === 'number') modelOptions.topP = options.topP;
  if (typeof options.seed === 'number') modelOptions.seed = options.seed;
  if (typeof options.presencePenalty === 'number') modelOptions.presencePenalty = options.presencePenalty;
  if (typeof options.frequencyPenalty === 'number') modelOptions.frequencyPenalty = options.frequencyPenalty;
  if (typeof options.reasoningEffort === 'string') modelOptions.reasoningEffort = options.reasoningEffort;
  if (Array.isArray(options.stopSequences)) modelOptions.stop = options.stopSequences as string[];
  if (options.cache === false || options.cache === 'auto') modelOptions.cache = options.cache;
  else if (Array.isArray(options.cache))
    modelOptions.cache = (options.cache as string[]).map((place) =>
      place === 'last_turn' ? 'lastTurn' : (place as 'system' | 'tools' | 'lastTurn'),
    );
  return createChatClient({
    // The client's provider union may lag the registry (agnes, anthropic arrive with @raf/client).
    provider: provider as Parameters<typeof createChatClient>[0]['provider'],
    // `apiType: responses` (the upstream's field): the OpenAI Responses API instead of Chat Completions.
    ...(decl.apiType === 'responses' && { apiType: 'responses' as const }),
    model: String(decl.name),
    ...(endpoint !== undefined && { baseURL: endpoint }),
    ...(apiKey !== undefined && { apiKey }),
    ...(connection.headers !== undefined && { headers: connection.headers }),
    ...(Object.keys(modelOptions).length > 0 && { modelOptions }),
    ...(options.extra !== undefined && { extraBody: options.extra as Record<string, unknown> }),
    ...(decl.capabilities !== undefined && { capabilities: decl.capabilities as ContentCapabilities }),
  });
}
