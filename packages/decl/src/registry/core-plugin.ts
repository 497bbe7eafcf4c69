import { resolve } from 'node:path';
import { createChatClient } from '@raf/client';
import { ReplayChatClient } from '@raf/client/testing';
import {
  ConfigError,
  type Declaration,
  type JSONValue,
  type ModelOptions,
  type PluginBuildContext,
  type RafPlugin,
  resolveScopePolicy,
} from '@raf/core';
import {
  AgentSkillsProvider,
  CompressionProvider,
  createFileTool,
  EstimateTokenCounter,
  ExactTokenCounter,
  FILE_TOOL_NAMES,
  type FileToolName,
  SlidingWindowStrategy,
  TokenBudgetStrategy,
  WorkspaceContextProvider,
} from '@raf/framework';
import { snakeCase } from '../schema/normalize.js';

const FILE_TOOLS = new Set<string>([...FILE_TOOL_NAMES, 'apply_patch']);

function configOf(decl: Declaration): Record<string, JSONValue> {
  return (decl.config ?? {}) as Record<string, JSONValue>;
}

/** Reads a config value under its camelCase or snake_case name. */
function setting(config: Record<string, JSONValue>, camel: string): JSONValue | undefined {
  return config[camel] ?? config[snakeCase(camel)];
}

function fileTool(decl: Declaration): ReturnType<typeof createFileTool>[] {
  const name = decl.name as string;
  if (decl.kind === 'shell' && name !== 'run_command') {
    throw new ConfigError(`kind: shell has one tool, run_command (got "${name}")`);
  }
  if (!FILE_TOOLS.has(name)) {
    throw new ConfigError(`"${name}" is not a file tool; use one of ${[...FILE_TOOLS].join(', ')}`);
  }
  return [createFileTool(name as FileToolName)];
}

function workspace(decl: Declaration, context: PluginBuildContext) {
  const config = configOf(decl);
  const { policy, warning } = resolveScopePolicy(setting(config, 'policy') as string | undefined);
  if (warning) context.warn(`workspace '${decl.name ?? 'workspace'}': ${warning}`);
  const root = setting(config, 'root');
  const roots = setting(config, 'roots');
  // Paths in the YAML are relative to its folder; an empty one stays empty (an error, not `.`).
  const local = (path: JSONValue) => (path === '' ? '' : resolve(context.baseDir, String(path)));
  const properties: Record<string, JSONValue> = {};
  for (const key of ['allowCommands', 'network', 'env'] as const) {
    const value = setting(config, key);
    if (value !== undefined) properties[key] = value;
  }
  const readable = setting(config, 'readableOutside');
  if (Array.isArray(readable)) properties.readableOutside = readable.map(local);
  return new WorkspaceContextProvider({
    root: root === undefined ? context.baseDir : local(root),
    ...(Array.isArray(roots) && { roots: roots.map(local) }),
    name: decl.name ?? 'workspace',
    policy,
    properties,
    ...(context.protectedPaths && { protectedPaths: context.protectedPaths }),
  });
}

async function skills(decl: Declaration, context: PluginBuildContext) {
  const directory = setting(configOf(decl), 'directory') ?? `skills/${decl.name ?? 'skills'}`;
  return AgentSkillsProvider.scan(resolve(context.baseDir, String(directory)));
}

async function compression(decl: Declaration) {
  const config = configOf(decl);
  const exact = setting(config, 'tokenCounter') === 'exact';
  const counter = exact
    ? await ExactTokenCounter.forModel(String(setting(config, 'model') ?? ''))
    : new EstimateTokenCounter();
  const strategy = String(setting(config, 'strategy') ?? decl.name ?? 'token_budget');
  const maxTokens = Number(setting(config, 'maxTokens') ?? 8000);
  const made =
    strategy === 'sliding_window'
      ? new SlidingWindowStrategy(Number(setting(config, 'windowSize') ?? 20))
      : strategy === 'token_budget'
        ? new TokenBudgetStrategy({
            toolResultEvictionThreshold: Number(setting(config, 'toolResultEvictionThreshold') ?? 0.5),
          })
        : undefined;
  if (!made)
    throw new ConfigError(`compression strategy "${strategy}" is not one of sliding_window, token_budget`);
  return new CompressionProvider({ strategy: made, counter, maxTokens });
}

function modelClient(decl: Declaration) {
  const connection = (decl.connection ?? {}) as {
    endpoint?: string;
    apiKey?: string;
    headers?: Record<string, string>;
  };
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
  return createChatClient({
    provider: String(decl.kind),
    model: String(decl.name),
    ...(connection.endpoint !== undefined && { baseURL: connection.endpoint }),
    ...(connection.apiKey !== undefined && connection.apiKey !== '' && { apiKey: connection.apiKey }),
    ...(connection.headers !== undefined && { headers: connection.headers }),
    ...(Object.keys(modelOptions).length > 0 && { modelOptions }),
    ...(options.extra !== undefined && { extraBody: options.extra as Record<string, unknown> }),
  });
}

/** The kinds every agent can use without an extension package. */
export const corePlugin: RafPlugin = {
  specificationVersion: 'v1',
  packageName: '@raf/decl',
  toolKinds: { file: fileTool, shell: fileTool },
  toolExpansions: { file: FILE_TOOL_NAMES, shell: ['run_command'] },
  contextKinds: { workspace, skills, compression },
  modelProviders: {
    openai: modelClient,
    deepseek: modelClient,
    custom: modelClient,
    replay: async (decl, context) => {
      const connection = (decl.connection ?? {}) as Record<string, string | undefined>;
      if (!connection.endpoint)
        throw new ConfigError('provider "replay" needs connection.endpoint: the recorded session file');
      return ReplayChatClient.fromFile(
        resolve(context.baseDir, connection.endpoint),
        context.signal ? { signal: context.signal } : {},
      );
    },
  },
};
