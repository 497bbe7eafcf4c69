import { type IContextProvider, type ITool, isScopeTool } from '@raf/core';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';
import type { WorkerSessionContext } from './worker-policy.js';

/** A tool an agent can have, as known before a run. */
export interface KnownTool {
  tool: ITool;
  /** Declared on the agent, routed to a workspace, or injected by another provider. */
  source: 'static' | 'workspace' | 'injected';
  /** The workspace or provider it comes from. */
  owner?: string;
  /** It acts on a workspace, so a worker can run it only with a root. */
  needsWorkspaceRoot: boolean;
}

/** What `knownTools` reads of an agent (a `ChatClientAgent` has it). */
export interface ToolHolder {
  readonly tools: readonly ITool[];
  readonly contextProviders: readonly IContextProvider[];
}

/** The tools a provider offers before a run (workspace, skills, memory and MCP providers say so). */
function providerTools(provider: IContextProvider): readonly ITool[] {
  const tools = (provider as { tools?: unknown }).tools;
  return Array.isArray(tools) ? (tools as ITool[]) : [];
}

/**
 * Every tool an agent can have, first name winning as in a run: its declared tools, then each
 * provider's, in provider order. Tools a provider only makes during a run are not known here.
 */
export function knownTools(agent: ToolHolder): KnownTool[] {
  const seen = new Set<string>();
  const known: KnownTool[] = [];
  const add = (entry: KnownTool) => {
    if (seen.has(entry.tool.name)) return;
    seen.add(entry.tool.name);
    known.push(entry);
  };
  for (const tool of agent.tools) add({ tool, source: 'static', needsWorkspaceRoot: isScopeTool(tool) });
  for (const provider of agent.contextProviders) {
    const workspace = provider instanceof WorkspaceContextProvider;
    for (const tool of providerTools(provider)) {
      add({
        tool,
        source: workspace ? 'workspace' : 'injected',
        owner: workspace ? provider.scope.name : provider.name,
        needsWorkspaceRoot: workspace,
      });
    }
  }
  return known;
}

/** The session a worker of this agent serves: its first workspace's main root, and its other roots. */
export function workspaceSessionOf(agent: ToolHolder): WorkerSessionContext {
  const workspace = agent.contextProviders.find(
    (p): p is WorkspaceContextProvider => p instanceof WorkspaceContextProvider,
  );
  if (!workspace) return {};
  const roots = (workspace.scope.roots ?? []).filter((root) => root !== workspace.scope.root);
  return roots.length > 0 ? { cwd: workspace.scope.root, roots } : { cwd: workspace.scope.root };
}
