import { resolve } from 'node:path';
import type { JSONValue } from '@raf/core';
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
import { agentFromPlan } from './agent-from-plan.js';
import type { PlannedSubAgent, PlanWithSubAgents } from './plan-sub-agents.js';
import { subAgentData } from './sub-agent-data.js';
import { WORKER_FACTORY_EXPORT, workerFactoryModule } from './worker-factory-ref.js';

// The runtime half of `DeclAgentBuilder`: the agents of a plan. `validate()` never gets here, so
// the builder imports this module on first build (a CLI's cold start pays for every module it
// loads: the agent loop, sessions, sub-agent workers and governance stores live behind it).

/** What the builder was set up with that its agents run under. */
export interface AssemblySettings {
  governance: GovernanceSource | string | undefined;
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
    ...(sub.runtime === 'worker' && { worker: workerRef(sub, governance) }),
  }));
  return agentFromPlan(plan, {
    governance,
    ...(plan.definition.toolPolicy && { toolPolicy: plan.definition.toolPolicy }),
    ...(specs.length > 0 && {
      subAgents: { specs, options: { maxIterations: planned.orchestration?.maxIterations ?? 15 } },
    }),
  });
}

/** How a worker process makes sub-agent `sub`: its definition as data, and the factory that reads it. */
function workerRef(sub: PlannedSubAgent, governance: GovernanceSource): WorkerFactoryRef {
  return {
    module: workerFactoryModule(),
    export: WORKER_FACTORY_EXPORT,
    options: subAgentData(sub.name, sub.plan, sub.settings, {
      ...(sub.toolPolicy && { toolPolicy: sub.toolPolicy }),
      governance: portableGovernance(governance),
    }),
  };
}

/** The governance a worker reads: the same file, or a snapshot of data held in this process. */
function portableGovernance(governance: GovernanceSource): { file: string } | { data: JSONValue } {
  if (governance instanceof FileGovernanceStore) return { file: governance.file };
  if (governance instanceof ToolGovernance) return { data: governance.data };
  if (governance instanceof InMemoryGovernanceStore) return { data: governance.snapshot() };
  // A store of the user's own (a database): the worker cannot reach it, so it runs without one.
  return { data: {} };
}
