import { mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ReplayChatClient } from '@raf/client/replay';
import {
  ConfigError,
  type ContextKindFactory,
  type Declaration,
  type JSONValue,
  type ModelProviderFactory,
  type PluginBuildContext,
  parseScopePolicy,
  type RafPlugin,
} from '@raf/core';
import {
  canonicalToolName,
  createFileTool,
  FILE_TOOL_NAMES,
  type FileToolName,
  WorkspaceContextProvider,
} from '@raf/framework';
import { suggest } from '../diagnostics/diagnostic.js';
import {
  compressionConfigSchema,
  fileToolConfigSchema,
  memoryConfigSchema,
  skillsConfigSchema,
  workspaceConfigSchema,
} from './core-config-schemas.js';
import { configOf, setting } from './declaration-config.js';

// The kinds a file may not use load with their first use: `raf validate` (a cold start that pays
// for every module it loads) of a file without memory, skills, compression or an HTTP model
// never loads those subsystems.
const skills: ContextKindFactory = async (decl, context) =>
  (await import('./skills-context.js')).skills(decl, context);
const compression: ContextKindFactory = async (decl, context) =>
  (await import('./compression-context.js')).compression(decl, context);
const memoryContext: ContextKindFactory = async (decl, context) =>
  (await import('./memory-context.js')).memoryContext(decl, context);
const modelClient: ModelProviderFactory = async (decl, context) =>
  (await import('./model-client.js')).modelClient(decl, context);

const FILE_TOOLS = new Set<string>([...FILE_TOOL_NAMES, 'apply_patch']);

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
  // The schema refused an unknown policy at its line; a factory called without it throws.
  const policy = parseScopePolicy(setting(config, 'policy') as string | undefined);
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
