import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { ConfigError, type ToolManifest } from '@raf/core';
import type { DeclAgentBuilder } from '@raf/decl';
import {
  aliasesOf,
  BUILTIN_TOOL_MANIFESTS,
  type ChatClientAgent,
  type GovernanceStore,
  profileRoute,
  type RuntimeDiagnostic,
  runtimeDiagnostic,
  ToolGovernance,
  WORKER_ROUTING_STRATEGIES,
  type WorkerRoutingStrategy,
} from '@raf/framework';
import { onlyFields, StudioHttpError } from './http-json.js';

/** One agent file the studio serves, under a URL-safe id. */
export interface StudioAgent {
  id: string;
  name: string;
  file: string;
  kind: 'agent' | 'workflow';
  builder: DeclAgentBuilder;
  /** The file's absolute path and its text as loaded (what a preview changes). */
  path: string;
  text: string;
  /** A builder with the same settings over other text for this file (a preview's). */
  rebuild(text: string): Promise<DeclAgentBuilder>;
}

/** Ids from the agents' names (a second agent of the same name gets `-2`). */
export function agentIds(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const base = name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-') || 'agent';
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}-${count}`;
  });
}

/**
 * The agents of the files, each explained once up front so a broken file fails at start-up.
 * `builderOf(file)` builds from the file; `builderOf(file, text)` the same way from that text
 * (relative paths still resolving against the file's folder).
 */
export async function loadStudioAgents(
  files: readonly string[],
  builderOf: (file: string, text?: string) => Promise<DeclAgentBuilder>,
  cwd = process.cwd(),
): Promise<StudioAgent[]> {
  const loaded: Omit<StudioAgent, 'id'>[] = [];
  for (const file of files) {
    const builder = await builderOf(file);
    const plan = await builder.explain();
    const path = resolve(cwd, file);
    loaded.push({
      name: plan.name,
      file: basename(file),
      kind: plan.workflow?.kind === 'workflow' ? 'workflow' : 'agent',
      builder,
      path,
      // Read right after the builder loaded it: what the page shows and a preview changes.
      text: await readFile(path, 'utf8'),
      rebuild: (text) => builderOf(file, text),
    });
  }
  const ids = agentIds(loaded.map((a) => a.name));
  return loaded.map((agent, i) => ({ ...agent, id: ids[i]! }));
}

/** The single agent of a file (a workflow file has no runtime diagnostic). */
export async function chatAgentOf(agent: StudioAgent, signal?: AbortSignal): Promise<ChatClientAgent> {
  const built = await agent.builder.buildAgent(signal ? { signal } : {});
  if (!('chatClient' in built))
    throw new StudioHttpError(
      400,
      'not_an_agent',
      `${agent.file} is a workflow: it has a plan but no runtime diagnostic or chat`,
    );
  return built;
}

/** `GET /api/agents/:id/diagnostic`: exactly `runtimeDiagnostic()` of the agent, read now. */
export async function diagnosticOf(agent: StudioAgent, signal: AbortSignal): Promise<RuntimeDiagnostic> {
  return runtimeDiagnostic(await chatAgentOf(agent, signal), { signal });
}

/**
 * `GET /api/governance`: every tool the project knows (the built-ins, the store's and the served
 * agents') with its global catalog entry, its manifest and the static profile that entry gives.
 * The manifest of a tool that is not built in comes from an agent's `runtimeDiagnostic()`.
 */
export async function governanceReport(
  { store, location }: { store: GovernanceStore; location: string },
  diagnostics: readonly RuntimeDiagnostic[],
  signal: AbortSignal,
  extensionManifests: Readonly<Record<string, ToolManifest>> = {},
) {
  const governance = new ToolGovernance(await store.load({ signal }));
  const manifests = new Map<string, RuntimeDiagnostic['tools'][number]['manifest']>();
  const visit = (d: RuntimeDiagnostic) => {
    for (const tool of d.tools) if (!manifests.has(tool.name)) manifests.set(tool.name, tool.manifest);
    d.subAgents.forEach(visit);
  };
  diagnostics.forEach(visit);
  for (const [name, m] of Object.entries({ ...BUILTIN_TOOL_MANIFESTS, ...extensionManifests })) {
    manifests.set(name, {
      kind: m.kind,
      executionMode: m.executionMode,
      supportedInWorker: m.supportedInWorker,
      workerRoutingHint: m.workerRoutingHint,
      requiresShell: m.requiresShell,
      requiresWrite: m.requiresWrite,
      requiresSkillScope: m.requiresSkillScope,
    });
  }
  const names = [...new Set([...manifests.keys(), ...governance.names()])].sort();
  return {
    file: location,
    strategies: WORKER_ROUTING_STRATEGIES,
    tools: names.map((name) => {
      const entry = governance.entry(name);
      const manifest = manifests.get(name) ?? null;
      return {
        name,
        aliases: aliasesOf(name),
        manifest,
        governance: {
          enabled: entry.enabled,
          core: entry.core,
          promptHint: entry.promptHint ?? null,
          workerRoutingStrategy: entry.workerRoutingStrategy,
        },
        profile: manifest ? { route: profileRoute(manifest as never, entry) } : null,
      };
    }),
  };
}
export type GovernanceReport = Awaited<ReturnType<typeof governanceReport>>;

const PATCH_FIELDS = ['tool', 'enabled', 'core', 'workerRoutingStrategy', 'promptHint'] as const;

/**
 * `PATCH /api/governance` `{ tool, enabled?, core?, workerRoutingStrategy?, promptHint? }`:
 * one tool's change through `ToolGovernance` (so a core tool cannot be disabled), saved atomically.
 */
export async function patchGovernance(
  store: GovernanceStore,
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<string> {
  onlyFields(body, PATCH_FIELDS);
  const { tool, enabled, core, workerRoutingStrategy, promptHint } = body;
  if (typeof tool !== 'string' || tool.trim() === '')
    throw new StudioHttpError(400, 'invalid_field', 'tool: expected a tool name');
  const bad = (field: string, expected: string) =>
    new StudioHttpError(400, 'invalid_field', `${field}: expected ${expected}`);
  if (enabled !== undefined && typeof enabled !== 'boolean') throw bad('enabled', 'true or false');
  if (core !== undefined && typeof core !== 'boolean') throw bad('core', 'true or false');
  if (
    workerRoutingStrategy !== undefined &&
    !WORKER_ROUTING_STRATEGIES.includes(workerRoutingStrategy as WorkerRoutingStrategy)
  )
    throw bad('workerRoutingStrategy', `one of ${WORKER_ROUTING_STRATEGIES.join(', ')}`);
  if (promptHint !== undefined && promptHint !== null && typeof promptHint !== 'string')
    throw bad('promptHint', 'a string or null');
  const governance = new ToolGovernance(await store.load({ signal }));
  try {
    if (core !== undefined) governance.setCore(tool, core);
    if (enabled !== undefined) governance.setEnabled(tool, enabled);
    if (workerRoutingStrategy !== undefined)
      governance.setRouting(tool, workerRoutingStrategy as WorkerRoutingStrategy);
    if (promptHint !== undefined) governance.setPromptHint(tool, promptHint?.trim() || undefined);
  } catch (error) {
    if (ConfigError.isInstance(error)) throw new StudioHttpError(400, 'governance_refused', error.message);
    throw error;
  }
  await store.save(governance.data, { signal });
  return tool;
}
