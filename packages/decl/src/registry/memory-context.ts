import { resolve } from 'node:path';
import {
  ConfigError,
  type Declaration,
  getErrorMessage,
  type IChatClient,
  type PluginBuildContext,
} from '@raf/core';
import { SuperBrainContextProvider } from '@raf/framework';
import type { MemoryConfig } from './core-config-schemas.js';
import { installCommand } from './install-hint.js';
import { needsExtension } from './plugin-registry.js';

/** The names each memory kind builds, with their default folders (upstream, by version). */
const NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  memory: { 'super-brain': 'logs/super-brain', 'skill-memory': 'logs/memory' },
  bundle: { 'knowledge-bundle': 'logs/knowledge-bundle' },
};

/**
 * `memoryModel` → a client through the model provider it names (`@raf/llama` registers
 * `llama|gguf|local|lm`). Without that plugin, or when it fails, a warning and the agent's own
 * model (as upstream). The factory gets `{ kind: provider, name: id, options, config }`.
 */
async function memoryModelClient(
  model: NonNullable<MemoryConfig['memoryModel']>,
  context: PluginBuildContext,
): Promise<IChatClient | undefined> {
  const provider = model.provider ?? 'llama';
  const options: Record<string, number> = {};
  if (model.temperature !== undefined) options.temperature = model.temperature;
  if (model.topP !== undefined) options.topP = model.topP;
  if (model.maxTokens !== undefined) options.maxOutputTokens = model.maxTokens;
  if (model.seed !== undefined) options.seed = model.seed;
  const declaration: Declaration = {
    kind: provider,
    name: model.id ?? 'super-brain-memory',
    connection: {},
    options,
    config: {
      modelPath: resolve(context.baseDir, model.modelPath),
      ...(model.tokenizerPath && { tokenizerPath: resolve(context.baseDir, model.tokenizerPath) }),
      ...(model.useGpu !== undefined && { useGpu: model.useGpu }),
    },
  };
  const fallback = "; the curator uses the agent's model";
  try {
    const client = await context.resolveModel?.(declaration);
    if (!client)
      context.warn(
        `memoryModel: model provider "${provider}" ${needsExtension({ package: '@raf/llama', plugin: 'llamaPlugin' }, context.baseDir)}${fallback}`,
      );
    return client;
  } catch (error) {
    context.warn(`memoryModel: ${getErrorMessage(error)}${fallback}`);
    return undefined;
  }
}

/**
 * `kind: memory, name: super-brain` (SPEC §6), and the older spellings `kind: memory, name:
 * skill-memory` and `kind: bundle, name: knowledge-bundle`, which build the same provider with
 * their own default folder and a deprecation warning. Nothing is created on disk here: the
 * bundle is seeded on the first run.
 */
export async function memoryContext(decl: Declaration, context: PluginBuildContext) {
  const config = (decl.config ?? {}) as MemoryConfig;
  const names = NAMES[decl.kind] ?? {};
  const name = decl.name ?? Object.keys(names)[0] ?? 'super-brain';
  const folder = names[name];
  if (folder === undefined) {
    throw new ConfigError(
      `kind: ${decl.kind} has no name "${name}"; use ${
        decl.kind === 'bundle'
          ? 'kind: memory, name: super-brain'
          : Object.keys(names)
              .map((n) => `"${n}"`)
              .join(' or ')
      }`,
    );
  }
  if (decl.kind !== 'memory' || name !== 'super-brain') {
    context.warn(
      `kind: ${decl.kind}, name: ${name} is deprecated; write kind: memory, name: super-brain${config.directory ? '' : ` (with directory: ${folder} to keep this folder)`}`,
    );
  }
  // memory_recall's search engine is an optional peer: named here, when the file is checked,
  // rather than as a tool error the model reads in the middle of a run.
  // (A disabled memory injects no tools.)
  const missing = config.enabled === false ? [] : SuperBrainContextProvider.missingPackages();
  if (missing.length > 0)
    throw new ConfigError(
      `kind: memory needs ${missing.join(', ')} for memory_recall (${installCommand(missing.join(' '), context.baseDir)})`,
    );
  const curatorClient = config.memoryModel ? await memoryModelClient(config.memoryModel, context) : undefined;
  const directory = resolve(context.baseDir, config.directory ?? folder);
  // The whole bundle: its SKILL.md and references become instructions, its pages are recalled.
  // Only the memory tools (and the curator, in its own workspace) write it; the agent's file
  // tools read it, and a sandboxed command sees it read-only (no links planted in it).
  context.protect?.([{ path: directory, reason: 'memory bundle', readable: true }]);
  return new SuperBrainContextProvider({
    directory,
    ...(config.enabled !== undefined && { enabled: config.enabled }),
    ...(config.consolidationInterval !== undefined && {
      consolidationInterval: config.consolidationInterval,
    }),
    ...(config.language && { language: config.language }),
    ...(context.chatClient && { chatClient: context.chatClient }),
    ...(curatorClient && { curatorClient }),
  });
}
