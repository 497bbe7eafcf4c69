import { getErrorMessage, type IChatClient, type PluginBuildContext } from '@raf/core';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import type { ModelDecl } from '../schema/agent-schema.js';

/** Connection settings a YAML can refer to with `connection: { kind: reference, name }`. */
export interface NamedConnection {
  endpoint?: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

/** `withModel()`: explicit overrides (the CLI's `--model`, `--base-url`), stronger than the file. */
export interface ModelOverride {
  id?: string;
  baseURL?: string;
  apiKey?: string;
  provider?: string;
}

type At = (path: (string | number)[], message: string) => void;

/** The providers that speak HTTP to a model server: a base URL or a model id means something to them. */
export const HTTP_PROVIDERS: ReadonlySet<string> = new Set([
  'openai',
  'deepseek',
  'agnes',
  'anthropic',
  'custom',
]);

/**
 * The provider an override leaves in force. A file's `replay` (or a local-model) provider reads
 * `connection.endpoint` as a file, so `--base-url URL` over it means "this server instead":
 * `custom` (any OpenAI-compatible server). `--model ID` alone over it means "a real model by that
 * name": `openai` (its key and `OPENAI_BASE_URL` from the environment). An explicit provider wins.
 */
export function overriddenProvider(fileProvider: string, override: ModelOverride): string {
  if (override.provider) return override.provider;
  if (HTTP_PROVIDERS.has(fileProvider)) return fileProvider;
  if (override.baseURL) return 'custom';
  if (override.id) return 'openai';
  return fileProvider;
}

/**
 * The chat client of `model:`: a `reference` connection resolved through `withConnection()` (a
 * missing one is an error, never a silent fall back to api.openai.com), then the explicit
 * overrides, then the provider's factory (which fills what is still empty from the environment).
 */
export async function planModel(
  model: ModelDecl,
  override: ModelOverride,
  connections: ReadonlyMap<string, NamedConnection>,
  registry: PluginRegistry,
  context: PluginBuildContext,
  at: At,
): Promise<{ client?: IChatClient; provider: string; modelId: string }> {
  const fileProvider = model.provider ?? 'openai';
  const provider = overriddenProvider(fileProvider, override);
  const modelId = override.id ?? model.id;
  // A switched provider keeps nothing of the file's connection: its endpoint was a file path.
  const connection = provider === fileProvider ? { ...model.connection } : {};
  let failed = false;
  if (connection.kind === 'reference') {
    const field =
      connection.name !== undefined ? 'name' : connection.target !== undefined ? 'target' : 'kind';
    const name = connection.name ?? connection.target;
    const named = name === undefined ? undefined : connections.get(name);
    if (!named) {
      at(
        ['model', 'connection', field],
        name === undefined
          ? 'a reference connection needs a name: the connection registered with builder.withConnection(name, …)'
          : `connection '${name}' is not registered; call builder.withConnection('${name}', { endpoint, apiKey }) before build()`,
      );
      failed = true;
    } else {
      if (named.endpoint && !connection.endpoint) connection.endpoint = named.endpoint;
      if (named.apiKey && !connection.apiKey) connection.apiKey = named.apiKey;
      if (named.headers) connection.headers = { ...named.headers, ...connection.headers };
    }
  }
  if (override.baseURL) connection.endpoint = override.baseURL;
  if (override.apiKey) connection.apiKey = override.apiKey;
  const factory = registry.modelProvider(provider);
  if (!factory) {
    at(['model', 'provider'], registry.missing('model provider', provider));
    return { provider, modelId };
  }
  if (failed) return { provider, modelId };
  try {
    const client = await factory(
      {
        kind: provider,
        name: modelId,
        connection,
        options: model.options ?? {},
        ...(model.apiType && { apiType: model.apiType }),
        ...(model.capabilities && { capabilities: model.capabilities }),
        ...(model.package && provider === fileProvider && { package: model.package }),
        ...(model.config && provider === fileProvider && { config: model.config }),
      } as never,
      context,
    );
    return { client, provider, modelId };
  } catch (error) {
    at(['model'], getErrorMessage(error));
    return { provider, modelId };
  }
}
