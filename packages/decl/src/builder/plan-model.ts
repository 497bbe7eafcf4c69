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
  const provider = override.provider ?? model.provider ?? 'openai';
  const modelId = override.id ?? model.id;
  const connection = { ...model.connection };
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
        ...(model.config && { config: model.config }),
      } as never,
      context,
    );
    return { client, provider, modelId };
  } catch (error) {
    at(['model'], getErrorMessage(error));
    return { provider, modelId };
  }
}
