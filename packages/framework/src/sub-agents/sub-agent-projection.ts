import { type AgentProjection, inheritToolPolicy, projectAgent } from '../runtime-policy/agent-projection.js';
import { type KnownTool, knownTools, workspaceSessionOf } from '../runtime-policy/agent-tools.js';
import { type AgentGovernance, currentGovernance } from '../runtime-policy/governance-view.js';
import { ToolGovernance } from '../runtime-policy/tool-governance.js';
import type { SubAgentSpec } from './sub-agent.js';

/** What a sub-agent's projection needs of its parent. */
export interface ParentOfSubAgents {
  governance?: AgentGovernance;
  /** The parent's tools: the ones a sub-agent does not have are listed as not selected. */
  tools?: readonly KnownTool[];
}

/** The sub-agent's own tools, as known before a run. */
export function subAgentTools(spec: SubAgentSpec): KnownTool[] {
  const known = knownTools(spec.agent);
  if (!spec.tools) return known;
  const byName = new Map(known.map((k) => [k.tool.name, k]));
  return spec.tools.map(
    (tool) => byName.get(tool.name) ?? { tool, source: 'static', needsWorkspaceRoot: false },
  );
}

/**
 * A sub-agent's projection under its parent: the parent's governance (its store read now) with
 * the policies merged so the child is never looser; the worker session from the child's
 * workspace; the shell and writing allowed only as far as the parent allows them.
 */
export async function projectSubAgent(
  spec: SubAgentSpec,
  parent: ParentOfSubAgents,
  signal?: AbortSignal,
): Promise<AgentProjection> {
  const source = spec.agent.governance?.source ?? parent.governance?.source;
  const governance = source ? await currentGovernance(source, signal) : new ToolGovernance();
  const parentPolicy = parent.governance?.policy;
  const policy = spec.agent.governance?.policy ?? inheritToolPolicy(parentPolicy, spec.toolPolicy);
  const session = {
    ...workspaceSessionOf(spec.agent),
    shellAllowed: governance.effective('run_command', parentPolicy).enabled,
    writeAllowed: governance.effective('write_file', parentPolicy).enabled,
  };
  return projectAgent({
    tools: subAgentTools(spec),
    ...(parent.tools && { unselected: parent.tools }),
    governance,
    ...(policy && { policy }),
    session,
  });
}
