import { stat } from 'node:fs/promises';
import {
  ChatClientError,
  ConfigError,
  type Declaration,
  definePlugin,
  getErrorMessage,
  type IChatClient,
  type ModelProviderFactory,
  type PluginBuildContext,
  type RafPlugin,
} from '@raf/core';
import { type LlamaChatClient, loadLlamaChatClient } from './client/llama-chat-client.js';
import { clientOptionsOf } from './config/llama-settings.js';
import { checkGgufFile } from './model/check-gguf.js';

/** The plugin, with `close()`: unloads every model its clients loaded (the CLI calls it at exit). */
export interface LlamaPlugin extends RafPlugin {
  close(): Promise<void>;
}

/** The names a YAML may give the provider (upstream's `memoryModel.provider` values). */
const PROVIDERS = ['llama', 'gguf', 'local', 'lm'] as const;

async function checkModelFile(path: string, provider: string): Promise<void> {
  const fail = (why: string, cause?: unknown) =>
    new ChatClientError(`cannot load the model ${path}: ${why}`, { provider, cause });
  try {
    const file = await stat(path);
    if (!file.isFile()) throw fail('not a file');
  } catch (error) {
    if (ChatClientError.isInstance(error)) throw error;
    throw fail(
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : getErrorMessage(error),
      error,
    );
  }
}

/**
 * `validate`/`explain` load nothing: the file's GGUF header is read (a wrong or broken file is
 * reported), and the client they get only names the model.
 */
async function plannedClient(path: string, provider: string, modelId: string): Promise<IChatClient> {
  try {
    await checkGgufFile(path);
  } catch (error) {
    throw new ChatClientError(`cannot load the model ${path}: ${getErrorMessage(error)}`, {
      provider,
      cause: error,
    });
  }
  return {
    modelId,
    provider,
    // biome-ignore lint/correctness/useYield: a planned client must never answer
    async *run() {
      throw new ConfigError(`${provider} ${modelId}: validate and explain do not load the model`);
    },
  };
}

/**
 * Local GGUF models through node-llama-cpp, as the model providers `llama`, `gguf`, `local` and
 * `lm`: super-brain's `memoryModel` and a whole agent's `model` (`provider: llama`, the file in
 * `connection.endpoint` or `config.modelPath`). Registers nothing on import:
 * `new DeclAgentBuilder().use(llamaPlugin())`.
 */
export function llamaPlugin(): LlamaPlugin {
  const clients = new Set<LlamaChatClient>();
  const factory: ModelProviderFactory = async (decl: Declaration, context: PluginBuildContext) => {
    const options = clientOptionsOf(decl, context);
    const provider = options.provider ?? decl.kind;
    await checkModelFile(options.modelPath, provider);
    // The weights the agent loads: no file tool may replace them with a crafted GGUF (SPEC §9).
    context.protect?.([{ path: options.modelPath, reason: 'local model file', readable: true }]);
    if (context.dryRun)
      return plannedClient(options.modelPath, provider, options.modelId ?? String(decl.name ?? provider));
    const client = await loadLlamaChatClient(options);
    clients.add(client);
    return client;
  };
  const plugin = definePlugin({
    specificationVersion: 'v1',
    packageName: '@raf/llama',
    modelProviders: Object.fromEntries(PROVIDERS.map((name) => [name, factory])),
  });
  return {
    ...plugin,
    async close() {
      const open = [...clients];
      clients.clear();
      await Promise.all(open.map((client) => client.dispose()));
    },
  };
}
