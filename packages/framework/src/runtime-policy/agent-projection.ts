import type { ITool, ToolManifest } from '@raf/core';
import type { KnownTool } from './agent-tools.js';
import { manifestOf } from './builtin-manifests.js';
import type { RuntimeRoute } from './runtime-labels.js';
import { profileRoute, projectToolRuntime, type ToolRuntime } from './runtime-projection.js';
import {
  type AgentToolPolicy,
  canonicalToolName,
  type ToolGovernance,
  type ToolGovernanceEntry,
} from './tool-governance.js';
import {
  buildSubprocessWorkerPolicy,
  type WorkerPolicy,
  type WorkerSessionContext,
} from './worker-policy.js';

/** One tool of an agent's projection: the static profile and this session's runtime. */
export interface ProjectedTool {
  name: string;
  /** The agent's instance; absent for a tool of the parent the sub-agent does not select. */
  tool?: ITool;
  manifest: ToolManifest;
  governance: ToolGovernanceEntry & { disabledBy?: 'governance' | 'agent' };
  profile: RuntimeRoute;
  runtime: ToolRuntime;
}

export interface AgentProjection {
  policy: WorkerPolicy;
  tools: ProjectedTool[];
}

export interface ProjectionRequest {
  /** The agent's own tools: its selection. */
  tools: readonly KnownTool[];
  /** Tools around it (the parent's) it did not select: listed as `not-selected`. */
  unselected?: readonly KnownTool[];
  /** Narrows the selection to these names (aliases accepted). */
  selection?: readonly string[];
  governance: ToolGovernance;
  policy?: AgentToolPolicy;
  session: WorkerSessionContext;
}

/**
 * The whole runtime picture of one (sub-)agent for this session: its worker policy (from the
 * selected, enabled tools) and, per tool, the static profile and the dynamic route. The one place
 * routes come from: `runtimeDiagnostic`, the CLI, and the worker runner all read this.
 */
export function projectAgent(request: ProjectionRequest): AgentProjection {
  const { governance, policy: agentPolicy } = request;
  const wanted = request.selection ? new Set(request.selection.map(canonicalToolName)) : undefined;
  const own = new Set(request.tools.map((k) => k.tool.name));
  const entries = [
    ...request.tools.map((known) => ({
      known,
      selected: !wanted || wanted.has(canonicalToolName(known.tool.name)),
    })),
    ...(request.unselected ?? [])
      .filter((k) => !own.has(k.tool.name))
      .map((known) => ({ known, selected: false })),
  ].map(({ known, selected }) => ({
    known,
    selected,
    manifest: manifestOf(known.tool),
    governance: governance.effective(known.tool.name, agentPolicy),
  }));
  const chosen = new Map(
    entries.filter((e) => e.selected && e.governance.enabled).map((e) => [e.known.tool.name, e.manifest]),
  );
  const policy = buildSubprocessWorkerPolicy(request.session, chosen, chosen.keys());
  return {
    policy,
    tools: entries.map(({ known, selected, manifest, governance: entry }) => ({
      name: known.tool.name,
      ...(selected && { tool: known.tool }),
      manifest,
      governance: entry,
      profile: profileRoute(manifest, entry),
      runtime: projectToolRuntime({
        manifest,
        governance: entry,
        selected,
        needsWorkspaceRoot: known.needsWorkspaceRoot,
        policy,
      }),
    })),
  };
}

/** Tools whose disabling by a parent becomes its workers' policy instead (no shell; read-only). */
const WORKER_POLICY_TOOLS = new Set(['run_command', 'write_file']);

/**
 * A sub-agent's policy under its parent's: never looser. The parent's disables pass down (except
 * `run_command` and `write_file`: disabling those in the parent turns off the shell and writing
 * in its workers, `shell_disabled_by_policy` and `write_blocked_by_readonly_policy`); only the
 * parent's `enabled` entries lift global disables (a child's own cannot widen what the parent
 * has); routing and hints of the child win.
 */
export function inheritToolPolicy(
  parent: AgentToolPolicy | undefined,
  child: AgentToolPolicy | undefined,
): AgentToolPolicy | undefined {
  if (!parent && !child) return undefined;
  const merged: AgentToolPolicy = {
    disabled: [
      ...(parent?.disabled ?? []).filter((name) => !WORKER_POLICY_TOOLS.has(canonicalToolName(name))),
      ...(child?.disabled ?? []),
    ],
    enabled: [...(parent?.enabled ?? [])],
    routing: { ...parent?.routing, ...child?.routing },
    promptHints: { ...parent?.promptHints, ...child?.promptHints },
  };
  return merged;
}
