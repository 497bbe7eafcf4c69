import type { ITool } from '@raf/core';
import type { ToolView } from '../pipeline/tool-view.js';
import type { GovernanceStore } from './governance-store.js';
import { type AgentToolPolicy, ToolGovernance } from './tool-governance.js';

/** Governance as given to an agent: fixed, or a store read again before every run. */
export type GovernanceSource = ToolGovernance | GovernanceStore;

/** An agent's governance: the global layer and the agent's own overrides (YAML `toolPolicy`). */
export interface AgentGovernance {
  source: GovernanceSource;
  policy?: AgentToolPolicy;
}

/** The current governance: a store is read now, so a change made since applies to this run. */
export async function currentGovernance(
  source: GovernanceSource,
  signal?: AbortSignal,
): Promise<ToolGovernance> {
  if (source instanceof ToolGovernance) return source;
  return new ToolGovernance(await source.load(signal ? { signal } : {}));
}

/**
 * The tool with another description, everything else its own (methods, manifest, class): a
 * prototype link, so `instanceof` and the tool's fields still hold.
 */
export function withDescription<T extends ITool>(tool: T, description: string): T {
  return Object.create(tool, {
    description: { value: description, enumerable: true, writable: false, configurable: true },
  }) as T;
}

/**
 * What governance leaves of a run's tools (SPEC §7.1): disabled tools are gone (whether declared
 * or injected by a provider), prompt hints are appended to the descriptions the model reads.
 */
export function governanceView(governance: ToolGovernance, policy?: AgentToolPolicy): ToolView {
  return (tools) => {
    const seen: ITool[] = [];
    for (const tool of tools) {
      const entry = governance.effective(tool.name, policy);
      if (!entry.enabled) continue;
      seen.push(
        entry.promptHint ? withDescription(tool, `${tool.description}\n\n${entry.promptHint}`) : tool,
      );
    }
    return seen;
  };
}

/** Two views in order (either may be absent). */
export function composeViews(
  first: ToolView | undefined,
  second: ToolView | undefined,
): ToolView | undefined {
  if (!first) return second;
  if (!second) return first;
  return (tools) => second(first(tools));
}
