import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import {
  ConfigError,
  type ContentCapabilities,
  type Declaration,
  definePlugin,
  getErrorMessage,
  type ModelOptions,
  type PluginBuildContext,
  type RafPlugin,
} from '@raf/core';
import { GuardedHttpClient } from '@raf/web/http';
import { fromAISDK } from './ai-sdk-chat-client.js';

/** A model's streamed answer may be long (tool calls with file contents, base64 images). */
const MODEL_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The `fetch` a provider built from YAML makes its requests with: RAF's SSRF guard
 * (`@raf/web/http`), the one network policy of every extension. Every connection is checked at
 * connect time (a host that resolves to a private or loopback address is refused unless it is the
 * endpoint's own host, which the author named), redirects are refused, and the body is capped.
 */
export function guardedModelFetch(endpoint: string | undefined): typeof fetch {
  let host: string | undefined;
  if (endpoint !== undefined) {
    try {
      host = new URL(endpoint).hostname;
    } catch {
      throw new ConfigError(`model.connection.endpoint "${endpoint}" is not a URL`);
    }
  }
  const http = new GuardedHttpClient({
    ...(host && { allowPrivate: [host] }),
    maxBytes: MODEL_MAX_BYTES,
  });
  return http.fetch as typeof fetch;
}

type ProviderFn = ((id: string) => LanguageModelV4) &
  Partial<Record<'languageModel' | 'chat' | 'responses', (id: string) => LanguageModelV4>>;

/** `@ai-sdk/openai` → `createOpenAI`, found by shape: the one `create…` export of the package. */
function providerFactory(
  module: Record<string, unknown>,
  pkg: string,
): ((settings: Record<string, unknown>) => ProviderFn) | undefined {
  const creators = Object.entries(module).filter(
    ([name, value]) => /^create[A-Z]/.test(name) && typeof value === 'function',
  );
  const tail =
    pkg
      .split('/')
      .at(-1)
      ?.replace(/[^a-z0-9]/gi, '')
      .toLowerCase() ?? '';
  const named = creators.find(([name]) => name.slice('create'.length).toLowerCase() === tail);
  return (named ?? (creators.length === 1 ? creators[0] : undefined))?.[1] as never;
}

/**
 * The package, from the agent file's folder first (the user's project), then from here. A file
 * names which package is imported: like a stdio MCP command, the agent definition decides what runs.
 */
async function importPackage(pkg: string, baseDir: string | undefined): Promise<Record<string, unknown>> {
  if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(pkg))
    throw new ConfigError(`model.package "${pkg}" is not an npm package name (e.g. @ai-sdk/openai)`);
  for (const from of [baseDir && join(baseDir, 'package.json'), import.meta.url]) {
    if (!from) continue;
    try {
      const resolved = createRequire(from).resolve(pkg);
      return (await import(pathToFileURL(resolved).href)) as Record<string, unknown>;
    } catch {}
  }
  try {
    return (await import(pkg)) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(
      `model.package ${pkg} is not installed (npm install ${pkg}): ${getErrorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
}

function modelOptionsOf(options: Record<string, unknown>): ModelOptions {
  const model: ModelOptions = {};
  if (typeof options.temperature === 'number') model.temperature = options.temperature;
  if (typeof options.maxOutputTokens === 'number') model.maxTokens = options.maxOutputTokens;
  if (typeof options.topP === 'number') model.topP = options.topP;
  if (typeof options.seed === 'number') model.seed = options.seed;
  if (Array.isArray(options.stopSequences)) model.stop = options.stopSequences as string[];
  return model;
}

/**
 * `model: { provider: ai-sdk, package: '@ai-sdk/openai', id: gpt-4o-mini }`: the package's
 * `create…` provider with the connection's `apiKey`, `endpoint` (as `baseURL`) and `headers`, then
 * its language model `id`. `options.extra` goes as the AI SDK's `providerOptions`.
 */
async function aiSdkModel(decl: Declaration, context: PluginBuildContext) {
  const pkg = (decl as { package?: unknown }).package;
  if (typeof pkg !== 'string' || pkg === '')
    throw new ConfigError(
      'provider ai-sdk needs model.package: the AI SDK provider package (e.g. @ai-sdk/openai)',
    );
  const module = await importPackage(pkg, context.baseDir);
  const create = providerFactory(module, pkg);
  if (!create) throw new ConfigError(`model.package ${pkg} exports no create…() provider function`);
  const connection = (decl.connection ?? {}) as {
    apiKey?: string;
    endpoint?: string;
    headers?: Record<string, string>;
  };
  const settings: Record<string, unknown> = {};
  if (connection.apiKey) settings.apiKey = connection.apiKey;
  if (connection.endpoint) settings.baseURL = connection.endpoint;
  if (connection.headers) settings.headers = connection.headers;
  // The provider package's own fetch would bypass RAF's network policy (`fromAISDK(model)` with
  // a model the user built in code stays theirs).
  settings.fetch = guardedModelFetch(connection.endpoint);
  const provider = create(settings);
  const id = String(decl.name);
  // `apiType` (the upstream's field) picks the provider's API when it has several (@ai-sdk/openai:
  // `chat` Chat Completions, `responses` the Responses API, its default).
  const apiType = (decl as { apiType?: 'chat' | 'responses' }).apiType;
  const pick = apiType ? provider[apiType] : provider.languageModel;
  if (apiType && !pick) throw new ConfigError(`model.package ${pkg} has no ${apiType} API (model.apiType)`);
  const model = pick ? pick.call(provider, id) : provider(id);
  const options = (decl.options ?? {}) as Record<string, unknown>;
  const capabilities = (decl as { capabilities?: ContentCapabilities }).capabilities;
  return fromAISDK(model, {
    modelOptions: modelOptionsOf(options),
    ...(capabilities && { capabilities }),
    ...(options.extra !== undefined && { providerOptions: options.extra as never }),
  });
}

/** Registers the `ai-sdk` model provider: `new DeclAgentBuilder().use(aiSdkPlugin())`. */
export function aiSdkPlugin(): RafPlugin {
  return definePlugin({
    specificationVersion: 'v1',
    packageName: '@raf/ai-sdk',
    modelProviders: { 'ai-sdk': aiSdkModel },
  });
}
