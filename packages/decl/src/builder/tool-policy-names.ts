import type { ITool } from '@raf/core';
import { BUILTIN_TOOL_MANIFESTS, canonicalToolName, DEFAULT_CORE_TOOLS } from '@raf/framework';
import { suggest } from '../diagnostics/diagnostic.js';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import type { ToolPolicyDecl } from '../schema/agent-schema.js';
import type { PlannedProvider } from './plan-contexts.js';

/** The tools a sub-agent coordinator adds (not among the planned tools yet). */
const DELEGATION_TOOLS = ['delegate_task', 'delegate_parallel'];

/**
 * A `toolPolicy` name that is a near miss of a tool the agent can have (`disabled: [run_comand]`)
 * is an error: the policy would leave `run_command` enabled. Names far from every known tool pass
 * (a sub-agent's or an MCP context's tools are not all known here), as do aliases (`bash`).
 */
export function checkToolPolicyNames(
  policy: ToolPolicyDecl | undefined,
  tools: readonly { tool: ITool }[],
  providers: readonly PlannedProvider[],
  registry: PluginRegistry,
  at: (path: (string | number)[], message: string) => void,
): void {
  if (!policy) return;
  const known = new Set<string>([
    ...Object.keys(BUILTIN_TOOL_MANIFESTS),
    ...DEFAULT_CORE_TOOLS,
    ...DELEGATION_TOOLS,
  ]);
  for (const { tool } of tools) known.add(tool.name);
  for (const { provider } of providers) {
    // Workspace, skills, memory, wiki and MCP providers list the tools they inject before a run.
    const listed = (provider as { tools?: unknown }).tools;
    if (Array.isArray(listed)) for (const tool of listed as ITool[]) known.add(tool.name);
  }
  for (const plugin of registry.registered)
    for (const name of Object.keys(plugin.toolManifests ?? {})) known.add(name);
  const check = (name: string, path: (string | number)[]) => {
    if (known.has(name) || known.has(canonicalToolName(name))) return;
    const near = suggest(name, known);
    if (near)
      at(
        path,
        `no tool is named '${name}' (did you mean '${near}'?): the policy would not apply to '${near}'`,
      );
  };
  for (const field of ['disabled', 'enabled'] as const)
    for (const [index, name] of (policy[field] ?? []).entries()) check(name, ['toolPolicy', field, index]);
  for (const field of ['routing', 'promptHints'] as const)
    for (const name of Object.keys(policy[field] ?? {})) check(name, ['toolPolicy', field, name]);
}
