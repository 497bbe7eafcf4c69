import type { IContextProvider, ITool } from '@raf/core';
import { isSkillTool } from '@raf/framework';
import type { PlannedProvider } from './plan-contexts.js';

/** An MCP server's tool (it says which server): the guest that must not take a host's name. */
function serverOf(tool: ITool): string | undefined {
  const server = (tool as { server?: unknown }).server;
  return typeof server === 'string' ? server : undefined;
}

/** The tools a provider offers before a run (workspace, skills, memory and MCP providers say so). */
function knownProviderTools(provider: IContextProvider): readonly ITool[] {
  const tools = (provider as { tools?: unknown }).tools;
  return Array.isArray(tools) ? (tools as ITool[]) : [];
}

interface Holder {
  what: string;
  path: (string | number)[];
}

/**
 * Every name the agent's own tools use (declared, built-in, injected by a context), MCP servers'
 * tools left out: what a server's tool may never take, at build or on a later `list_changed`.
 */
export function hostToolNames(
  tools: readonly { tool: ITool }[],
  providers: readonly PlannedProvider[],
): Set<string> {
  const names = new Set<string>();
  for (const { tool } of tools) if (serverOf(tool) === undefined) names.add(tool.name);
  for (const { provider } of providers)
    for (const tool of knownProviderTools(provider)) if (serverOf(tool) === undefined) names.add(tool.name);
  return names;
}

/**
 * The rule for MCP tool names (issue 26): a server's tool whose name another tool of the agent
 * has — declared, built-in or injected — is refused at build, whatever the order of the entries
 * (the first name wins in a run, so a server listed before the workspace would otherwise receive
 * every `read_file`/`write_file` call). Servers among themselves get prefixes (`srv__search`).
 */
export function checkToolNameClashes(
  tools: readonly { tool: ITool; source: string; workspace?: string; index?: number }[],
  providers: readonly PlannedProvider[],
  contextName: (index: number | undefined) => string | undefined,
  at: (path: (string | number)[], message: string) => void,
): void {
  const hosts = new Map<string, Holder>();
  const guests: { tool: ITool; server: string; path: (string | number)[] }[] = [];
  for (const { tool, source, workspace, index } of tools) {
    const server = serverOf(tool);
    const path = index === undefined ? [] : ['tools', index];
    if (server !== undefined) guests.push({ tool, server, path });
    else if (!hosts.has(tool.name))
      hosts.set(tool.name, {
        what: source === 'workspace' ? `the workspace '${workspace}'` : 'a declared tool',
        path,
      });
  }
  for (const { provider, index } of providers) {
    const path = index === undefined ? [] : ['contexts', index];
    for (const tool of knownProviderTools(provider)) {
      const server = serverOf(tool);
      if (server !== undefined) guests.push({ tool, server, path });
      else if (!hosts.has(tool.name))
        hosts.set(tool.name, {
          what: `the ${provider.kind} context '${contextName(index) ?? provider.name}'`,
          path,
        });
    }
  }
  for (const { tool, server, path } of guests) {
    const host = hosts.get(tool.name);
    if (!host) continue;
    const remote = (tool as { remoteName?: unknown }).remoteName;
    const original = typeof remote === 'string' ? remote : tool.name;
    at(
      path,
      `MCP server '${server}' offers a tool named '${tool.name}', which ${host.what} already provides: a server's tool never replaces one of the agent's; rename it (tool_name: { ${original}: ${server.replace(/[^A-Za-z0-9_-]+/g, '_')}__${tool.name} }) or leave it out (tools: [...])`,
    );
  }
}

/**
 * Two of the agent's own tools with one name, one of them injected by a context (two `kind: wiki`
 * contexts both inject `wiki_search`): in a run the first silently replaced the second, so the
 * second context's tool was never called. Refused at build, naming both. The skill tools of a
 * skills context and the memory are joined instead (`combineSkillTools`), and a workspace's tools
 * are the `tools:` entries routed to it, not a second copy. Two memory contexts (the upstream's
 * `knowledge-bundle` beside `super-brain`) keep the upstream's outcome, the first's memory tools,
 * with a warning that says so.
 */
export function checkInjectedClashes(
  tools: readonly { tool: ITool; source: string; index?: number }[],
  providers: readonly PlannedProvider[],
  contextName: (index: number | undefined) => string | undefined,
  at: (path: (string | number)[], message: string, severity: 'error' | 'warning') => void,
): void {
  const hosts = new Map<string, { tool: ITool; what: string; kind?: string }>();
  for (const { tool, source, index } of tools) {
    if (serverOf(tool) !== undefined || source === 'workspace' || hosts.has(tool.name)) continue;
    hosts.set(tool.name, { tool, what: index === undefined ? 'a tool added in code' : `tools[${index}]` });
  }
  for (const { provider, index } of providers) {
    const what = `the ${provider.kind} context '${contextName(index) ?? provider.name}'`;
    const own = new Set<string>();
    for (const tool of knownProviderTools(provider)) {
      if (serverOf(tool) !== undefined || own.has(tool.name)) continue;
      own.add(tool.name);
      const host = hosts.get(tool.name);
      if (!host) {
        hosts.set(tool.name, {
          tool,
          what: index === undefined ? what : `${what} (contexts[${index}])`,
          kind: provider.kind,
        });
        continue;
      }
      if (host.tool === tool || (isSkillTool(host.tool) && isSkillTool(tool))) continue;
      const memories = host.kind === 'memory' && provider.kind === 'memory';
      at(
        index === undefined ? [] : ['contexts', index],
        `${what} injects a tool named '${tool.name}', which ${host.what} already provides: only the first ${memories ? 'is' : 'would ever be'} called; keep one of them`,
        memories ? 'warning' : 'error',
      );
    }
  }
}
