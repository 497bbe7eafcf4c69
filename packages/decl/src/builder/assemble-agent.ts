import { resolve } from 'node:path';
import type { JSONValue, ProtectedPath } from '@raf/core';
import {
  type ChatClientAgent,
  DEFAULT_GOVERNANCE_FILE,
  FileGovernanceStore,
  type GovernanceSource,
  InMemoryGovernanceStore,
  type SubAgentSpec,
  ToolGovernance,
  type WorkerFactoryRef,
} from '@raf/framework';
import type { Environment } from '../env/resolve-env.js';
import { agentFromPlan } from './agent-from-plan.js';
import type { ModelOverride } from './plan-model.js';
import type { PlannedSubAgent, PlanWithSubAgents } from './plan-sub-agents.js';
import {
  WORKER_FACTORY_EXPORT,
  type WorkerFactoryOptions,
  workerFactoryModule,
} from './worker-factory-ref.js';

// The runtime half of `DeclAgentBuilder`: the agents of a plan. `validate()` never gets here, so
// the builder imports this module on first build (a CLI's cold start pays for every module it
// loads: the agent loop, sessions, sub-agent workers and governance stores live behind it).

/** Where the builder's agents come from and what they run under, as the builder was set up. */
export interface AssemblySettings {
  source:
    | { type: 'text'; text: string; file?: string; format?: 'yaml' | 'json' | 'toml' }
    | { type: 'file'; path: string }
    | { type: 'object'; value: unknown };
  governance: GovernanceSource | string | undefined;
  /** Extension packages registered on the builder, by name (a worker registers them again). */
  plugins: string[];
  model: ModelOverride;
  variables: Record<string, unknown>;
  strict: Required<{ unknownKeys: boolean; missingFolders: boolean }>;
  protectedPaths: ProtectedPath[];
  env: Environment | undefined;
}

/** The governance the agents of this file run under (default: `.raf/governance.json` beside it). */
export function governanceSource(settings: AssemblySettings, baseDir: string): GovernanceSource {
  const source = settings.governance ?? DEFAULT_GOVERNANCE_FILE;
  return typeof source === 'string' ? new FileGovernanceStore(resolve(baseDir, source)) : source;
}

/** Sub-agent `sub` alone, as its worker process builds it. */
export function assembleSubAgent(
  sub: PlannedSubAgent,
  baseDir: string,
  settings: AssemblySettings,
): ChatClientAgent {
  return agentFromPlan(sub.plan, subAssembly(sub, baseDir, settings));
}

function subAssembly(sub: PlannedSubAgent, baseDir: string, settings: AssemblySettings) {
  return {
    governance: governanceSource(settings, baseDir),
    ...(sub.toolPolicy && { toolPolicy: sub.toolPolicy }),
  };
}

/** The root agent with its sub-agents, each built here too (inline runs, proxied tools, the diagnostic). */
export function assembleAgent(planned: PlanWithSubAgents, settings: AssemblySettings): ChatClientAgent {
  const plan = planned.plan!;
  const governance = governanceSource(settings, plan.baseDir);
  const specs: SubAgentSpec[] = planned.subAgents.map((sub) => ({
    name: sub.name,
    ...(sub.definition.description && { description: sub.definition.description }),
    agent: agentFromPlan(sub.plan, subAssembly(sub, plan.baseDir, settings)),
    runtime: sub.runtime,
    ...(sub.definition.timeoutSecs !== undefined && { timeoutSecs: sub.definition.timeoutSecs }),
    ...(sub.runtime === 'worker' && { worker: workerRef(sub.name, governance, settings) }),
  }));
  return agentFromPlan(plan, {
    governance,
    ...(plan.definition.toolPolicy && { toolPolicy: plan.definition.toolPolicy }),
    ...(specs.length > 0 && {
      subAgents: { specs, options: { maxIterations: planned.orchestration?.maxIterations ?? 15 } },
    }),
  });
}

/** How a worker process rebuilds sub-agent `name`: the builder's source and settings, as data. */
function workerRef(name: string, governance: GovernanceSource, settings: AssemblySettings): WorkerFactoryRef {
  const { source } = settings;
  const options: WorkerFactoryOptions = {
    source:
      source.type === 'file'
        ? { file: resolve(source.path) }
        : source.type === 'text'
          ? { text: source.text, file: source.file ?? 'agent.yaml', format: source.format ?? 'yaml' }
          : { object: source.value as JSONValue },
    subAgent: name,
    plugins: settings.plugins,
    model: settings.model,
    variables: settings.variables as Record<string, JSONValue>,
    strict: settings.strict,
    protectedPaths: settings.protectedPaths,
    ...(settings.env && { env: { ...settings.env } as Record<string, string> }),
  };
  if (governance instanceof FileGovernanceStore) options.governance = { file: governance.file };
  else if (governance instanceof ToolGovernance)
    options.governance = { data: governance.data as unknown as JSONValue };
  else if (governance instanceof InMemoryGovernanceStore) {
    // A snapshot: an in-memory store cannot be shared with another process.
    options.governance = { data: (governance as unknown as { data: JSONValue }).data };
  }
  return {
    module: workerFactoryModule(),
    export: WORKER_FACTORY_EXPORT,
    options: options as unknown as JSONValue,
  };
}
