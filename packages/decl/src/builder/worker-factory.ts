import { resolve } from 'node:path';
import { preloadHttp } from '@raf/client';
import { ConfigError, type JSONValue } from '@raf/core';
import {
  FileGovernanceStore,
  governanceDataSchema,
  type SubAgentFactoryResult,
  ToolGovernance,
} from '@raf/framework';
import { DeclError } from '../diagnostics/diagnostic.js';
import type { LoadedDefinition } from '../load/load-definition.js';
import { corePlugin } from '../registry/core-plugin.js';
import { loadExtension } from '../registry/extension-loader.js';
import { PluginRegistry } from '../registry/plugin-registry.js';
import { agentFromPlan } from './agent-from-plan.js';
import { planAgent } from './agent-plan.js';
import { parseSubAgentData, type SubAgentData } from './sub-agent-data.js';

export { WORKER_FACTORY_EXPORT, workerFactoryModule } from './worker-factory-ref.js';

/** Run by a spare worker while it waits: what the first model request would load, loaded now. */
export async function warmUp(): Promise<void> {
  await preloadHttp();
}

/**
 * The factory a sub-agent's worker process calls (`WorkerFactoryRef`): it gets the sub-agent's
 * definition as data (`subAgentData`), checks it, registers the parent's extension packages with
 * their options, and plans that one agent: its own entries are built, nothing else (the agent file
 * is not read again and no sibling is planned, so a sibling's MCP server does not start here).
 */
export async function createSubAgentForWorker(
  options: JSONValue,
  context: { signal: AbortSignal },
): Promise<SubAgentFactoryResult> {
  const data = parseSubAgentData(options);
  const registry = new PluginRegistry().use(corePlugin);
  registry.projectFolder = data.baseDir;
  for (const { package: name, options: pluginOptions } of data.plugins) {
    const plugin = await loadExtension(name, data.baseDir, pluginOptions);
    if (plugin) registry.use(plugin);
  }
  const file = `(sub-agent ${data.name})`;
  // The definition as the parent planned it (already checked there): positions are the parent's.
  const loaded: LoadedDefinition = {
    definition: { ...data.definition },
    document: { file, value: data.definition, locate: () => ({ line: 1, column: 1 }) },
    normalized: data.definition,
    origins: new WeakMap(),
    diagnostics: [],
  };
  const { plan, diagnostics } = await planAgent({
    loaded,
    registry,
    factories: new Map(),
    codeTools: new Map(),
    codeProviders: [],
    model: data.model,
    connections: new Map(),
    variables: data.variables,
    ...(data.env && { env: data.env }),
    baseDir: data.baseDir,
    strict: data.strict.missingFolders,
    strictKeys: data.strict.unknownKeys,
    protectedPaths: data.protectedPaths,
    ...(data.mcpServers && { mcpServers: data.mcpServers }),
    signal: context.signal,
  });
  if (!plan) throw new DeclError(diagnostics);
  return {
    agent: agentFromPlan(plan, {
      governance: governanceOf(data),
      ...(data.toolPolicy && { toolPolicy: data.toolPolicy }),
    }),
  };
}

function governanceOf(data: SubAgentData) {
  const { governance } = data;
  if ('file' in governance) return new FileGovernanceStore(resolve(data.baseDir, governance.file));
  // A snapshot of the parent's governance (fixed data, or an in-memory store), parsed as such.
  const parsed = governanceDataSchema().safeParse(governance.data);
  if (!parsed.success)
    throw new ConfigError(
      `the governance sent to the worker of ${data.name} is not valid: ${parsed.error.message}`,
    );
  return new ToolGovernance(parsed.data);
}
