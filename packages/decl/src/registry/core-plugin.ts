import { mkdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createChatClient } from '@raf/client';
import { ReplayChatClient } from '@raf/client/replay';
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
  canonicalToolName,
  createFileTool,
  EstimateTokenCounter,
  ExactTokenCounter,
  FILE_TOOL_NAMES,
  type FileToolName,
  SlidingWindowStrategy,
  SummarizeStrategy,
  TokenBudgetStrategy,
  WorkspaceContextProvider,
} from '@raf/framework';
import { suggest } from '../diagnostics/diagnostic.js';
import { snakeCase } from '../schema/normalize.js';
import {
  compressionConfigSchema,
  fileToolConfigSchema,
  memoryConfigSchema,
  skillsConfigSchema,
  workspaceConfigSchema,
} from './core-config-schemas.js';
import { memoryContext } from './memory-context.js';

const FILE_TOOLS = new Set<string>([...FILE_TOOL_NAMES, 'apply_patch']);

function configOf(decl: Declaration): Record<string, JSONValue> {
  return (decl.config ?? {}) as Record<string, JSONValue>;
}

/** Reads a config value under its camelCase or snake_case name. */
function setting(config: Record<string, JSONValue>, camel: string): JSONValue | undefined {
  return config[camel] ?? config[snakeCase(camel)];
}

function fileTool(decl: Declaration): ReturnType<typeof createFileTool>[] {
  // Seed 002's spellings (`bash`, `list_dir`, `grep`, `edit`, `patch`) name the same tools.
  const name = canonicalToolName(decl.name as string);
  if (decl.kind === 'shell' && name !== 'run_command') {
    throw new ConfigError(`kind: shell has one tool, run_command (got "${name}")`);
  }
  if (!FILE_TOOLS.has(name)) {
    const hint = suggest(name, FILE_TOOLS);
    throw new ConfigError(
      `"${name}" is not a file tool${hint ? ` (did you mean "${hint}"?)` : ''}; use one of ${[...FILE_TOOLS].join(', ')}`,
    );
  }
  return [createFileTool(name as FileToolName)];
}

/** A workspace root must exist; `create: true` makes it at build (never in a dry run). */
function ensureFolder(path: string, create: boolean, context: PluginBuildContext): void {
  let info: ReturnType<typeof statSync> | undefined;
  try {
    info = statSync(path);
  } catch {
    if (!create)
      throw new ConfigError(`the workspace root ${path} does not exist (create it, or set create: true)`);
    if (!context.dryRun) mkdirSync(path, { recursive: true });
    return;
  }
  if (!info?.isDirectory()) throw new ConfigError(`the workspace root ${path} is not a folder`);
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
  const rootPath = root === undefined ? context.baseDir : local(root);
  if (rootPath !== '') ensureFolder(rootPath, setting(config, 'create') === true, context);
  return new WorkspaceContextProvider({
    root: rootPath,
    ...(Array.isArray(roots) && { roots: roots.map(local) }),
    name: decl.name ?? 'workspace',
    policy,
    properties,
    ...(context.protectedPaths && { protectedPaths: context.protectedPaths }),
  });
}

/** A missing folder is skipped with a warning, as upstream; an error only in strict mode. */
async function skills(decl: Declaration, context: PluginBuildContext) {
  const directory = setting(configOf(decl), 'directory') ?? `skills/${decl.name ?? 'skills'}`;
  const path = resolve(context.baseDir, String(directory));
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) {
    const message = `${path}: the skills folder does not exist`;
    if (context.strict) throw new ConfigError(message);
    context.warn(`${message}; the skills provider is skipped`);
    return undefined;
  }
  return AgentSkillsProvider.scan(path);
}

async function compression(decl: Declaration, context: PluginBuildContext) {
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
        : strategy === 'summarize'
          ? summarize(config, context)
          : undefined;
  if (!made)
    throw new ConfigError(
      `compression strategy "${strategy}" is not one of sliding_window, token_budget, summarize`,
    );
  return new CompressionProvider({ strategy: made, counter, maxTokens });
}

/** An LLM summary of the oldest part, written by the agent's own model. */
function summarize(config: Record<string, JSONValue>, context: PluginBuildContext) {
  if (!context.chatClient) throw new ConfigError("compression summarize needs the agent's model");
  const share = setting(config, 'keepRecentShare');
  const prompt = setting(config, 'prompt');
  return new SummarizeStrategy({
    client: context.chatClient,
    ...(typeof share === 'number' && { keepRecentShare: share }),
    ...(typeof prompt === 'string' && { prompt }),
  });
}

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

function modelClient(decl: Declaration, context: PluginBuildContext) {
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
  return createChatClient({
    // The client's provider union may lag the registry (agnes, anthropic arrive with @raf/client).
    provider: provider as Parameters<typeof createChatClient>[0]['provider'],
    model: String(decl.name),
    ...(endpoint !== undefined && { baseURL: endpoint }),
    ...(apiKey !== undefined && { apiKey }),
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
  contextKinds: { workspace, skills, compression, memory: memoryContext, bundle: memoryContext },
  // Getters: a schema is built when the registry first reads it (`PluginRegistry.configSchema`).
  configSchemas: {
    tools: {
      get file() {
        return fileToolConfigSchema();
      },
      get shell() {
        return fileToolConfigSchema();
      },
    },
    contexts: {
      get workspace() {
        return workspaceConfigSchema();
      },
      get skills() {
        return skillsConfigSchema();
      },
      get compression() {
        return compressionConfigSchema();
      },
      get memory() {
        return memoryConfigSchema();
      },
      get bundle() {
        return memoryConfigSchema();
      },
    },
  },
  modelProviders: {
    openai: modelClient,
    deepseek: modelClient,
    agnes: modelClient,
    anthropic: modelClient,
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
