import type { ChatClientAgent } from '../agent/chat-client-agent.js';
import { projectSubAgent } from '../sub-agents/sub-agent-projection.js';
import { SubAgentsProvider } from '../sub-agents/sub-agents-provider.js';
import { type AgentProjection, type ProjectedTool, projectAgent } from './agent-projection.js';
import { knownTools, workspaceSessionOf } from './agent-tools.js';
import { currentGovernance } from './governance-view.js';
import type { BlockedReason, RuntimeState } from './runtime-labels.js';
import { type Label, type LabelLanguage, RUNTIME_LABELS, type RuntimeRoute } from './runtime-labels.js';
import { aliasesOf, ToolGovernance, type WorkerRoutingStrategy } from './tool-governance.js';
import type { WorkerPolicy, WorkerSessionContext } from './worker-policy.js';

export interface RuntimeDiagnosticOptions {
  /** The session to project for (default: the agent's first workspace: its root and other roots). */
  session?: WorkerSessionContext;
  /** The agent's tools to count as selected (default: all of them); aliases accepted. */
  selection?: readonly string[];
  /** Adds `runtime.text`: the label in this language (both are always in `runtime.label`). */
  lang?: LabelLanguage;
  signal?: AbortSignal;
}

/** One tool in `runtimeDiagnostic()` (SPEC §7.1; extra fields may be added, none renamed). */
export interface DiagnosedTool {
  name: string;
  aliases: string[];
  manifest: {
    kind: string;
    executionMode: 'parallel' | 'sequential';
    supportedInWorker: boolean;
    workerRoutingHint: 'local' | 'main-process-proxy' | 'disabled';
    requiresShell: boolean;
    requiresWrite: boolean;
    requiresSkillScope: boolean;
  };
  governance: {
    enabled: boolean;
    core: boolean;
    promptHint: string | null;
    workerRoutingStrategy: WorkerRoutingStrategy;
    /** Which layer turned the tool off, when one did. */
    disabledBy?: 'governance' | 'agent';
  };
  profile: { route: RuntimeRoute };
  runtime: {
    state: RuntimeState;
    route: RuntimeRoute;
    blockedReason: BlockedReason | null;
    label: Label | null;
    /** The label in the requested language (or the state's, when nothing blocks). */
    text?: string;
  };
}

/** `runtimeDiagnostic()`: the static profile and this session's routes of an agent and its sub-agents. */
export interface RuntimeDiagnostic {
  agent: string;
  workerPolicy: WorkerPolicy | null;
  tools: DiagnosedTool[];
  subAgents: RuntimeDiagnostic[];
}

function diagnose(tool: ProjectedTool, lang: LabelLanguage | undefined): DiagnosedTool {
  const { manifest, governance, runtime } = tool;
  const diagnosed: DiagnosedTool = {
    name: tool.name,
    aliases: aliasesOf(tool.name),
    manifest: {
      kind: manifest.kind,
      executionMode: manifest.executionMode,
      supportedInWorker: manifest.supportedInWorker,
      workerRoutingHint: manifest.workerRoutingHint,
      requiresShell: manifest.requiresShell,
      requiresWrite: manifest.requiresWrite,
      requiresSkillScope: manifest.requiresSkillScope,
    },
    governance: {
      enabled: governance.enabled,
      core: governance.core,
      promptHint: governance.promptHint ?? null,
      workerRoutingStrategy: governance.workerRoutingStrategy,
      ...(governance.disabledBy && { disabledBy: governance.disabledBy }),
    },
    profile: { route: tool.profile },
    runtime: {
      state: runtime.state,
      route: runtime.route,
      blockedReason: runtime.blockedReason,
      label: runtime.label,
    },
  };
  if (lang) diagnosed.runtime.text = (runtime.label ?? RUNTIME_LABELS.states[runtime.state])[lang];
  return diagnosed;
}

function report(name: string, projection: AgentProjection, lang: LabelLanguage | undefined) {
  return {
    agent: name,
    workerPolicy: projection.tools.length > 0 ? projection.policy : null,
    tools: projection.tools.map((t) => diagnose(t, lang)),
    subAgents: [] as RuntimeDiagnostic[],
  };
}

/**
 * The one runtime picture of an agent (SPEC §7.1) that the CLI, the API and the studio print and
 * never re-derive: for the agent and each of its sub-agents, every tool's manifest, governance,
 * static profile and, for this session (its worker policy: roots, shell, writing, selection),
 * state, route and blocked reason with labels in both languages. Governance kept in a store is
 * read now.
 */
export async function runtimeDiagnostic(
  agent: ChatClientAgent,
  options: RuntimeDiagnosticOptions = {},
): Promise<RuntimeDiagnostic> {
  const governance = agent.governance;
  const current = governance
    ? await currentGovernance(governance.source, options.signal)
    : new ToolGovernance();
  const tools = knownTools(agent);
  const root = projectAgent({
    tools,
    ...(options.selection && { selection: options.selection }),
    governance: current,
    ...(governance?.policy && { policy: governance.policy }),
    session: options.session ?? workspaceSessionOf(agent),
  });
  const diagnostic = report(agent.name, root, options.lang);
  const provider = agent.contextProviders.find((p) => p instanceof SubAgentsProvider);
  for (const spec of provider?.subAgents ?? []) {
    const projection = await projectSubAgent(
      spec,
      { ...(governance && { governance: { ...governance, source: current } }), tools },
      options.signal,
    );
    diagnostic.subAgents.push(report(spec.name, projection, options.lang));
  }
  return diagnostic;
}
