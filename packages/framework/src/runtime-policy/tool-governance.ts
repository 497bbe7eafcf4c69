import { ConfigError } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { TOOL_NAME_ALIASES } from './builtin-manifests.js';

export const WORKER_ROUTING_STRATEGIES = [
  'auto',
  'force-local',
  'force-main-process-proxy',
  'force-disabled',
] as const;
export type WorkerRoutingStrategy = (typeof WORKER_ROUTING_STRATEGIES)[number];

/** The catalog layer of seed 002 for one tool: is it on, may it be turned off, how workers run it. */
export interface ToolGovernanceEntry {
  enabled: boolean;
  /** A core tool cannot be disabled (globally or by an agent). */
  core: boolean;
  /** Added to the description the model sees. */
  promptHint?: string;
  workerRoutingStrategy: WorkerRoutingStrategy;
}

// Built on first use (a store read): importing the framework builds no schema.
export const governanceDataSchema = onFirstUse(() => {
  const entrySchema = z.strictObject({
    enabled: z.boolean().optional(),
    core: z.boolean().optional(),
    promptHint: z.string().optional(),
    workerRoutingStrategy: z.enum(WORKER_ROUTING_STRATEGIES).optional(),
  });
  return z.strictObject({
    version: z.literal(1),
    tools: z.record(z.string(), entrySchema),
  });
});

/** What a store holds: only what differs from the defaults, per canonical tool name. */
export type GovernanceData = z.output<ReturnType<typeof governanceDataSchema>>;

/** An agent's overrides (YAML `toolPolicy`, SPEC §7.1); names may be seed 002 aliases. */
export interface AgentToolPolicy {
  disabled?: readonly string[];
  enabled?: readonly string[];
  routing?: Readonly<Record<string, WorkerRoutingStrategy>>;
  promptHints?: Readonly<Record<string, string>>;
}

/** Tools that are core unless the store says otherwise: without them a feature cannot work. */
export const DEFAULT_CORE_TOOLS: readonly string[] = ['load_skill', 'delegate_task', 'delegate_parallel'];

/** Our name for a tool named in seed 002's other spelling (`bash` → `run_command`). */
export function canonicalToolName(name: string): string {
  return TOOL_NAME_ALIASES[name] ?? name;
}

/** The seed 002 spellings of a tool, for display (`run_command` → `['bash']`). */
export function aliasesOf(name: string): string[] {
  return Object.entries(TOOL_NAME_ALIASES)
    .filter(([, canonical]) => canonical === name)
    .map(([alias]) => alias);
}

export function emptyGovernance(): GovernanceData {
  return { version: 1, tools: {} };
}

/**
 * Global tool governance over the data of a `GovernanceStore`: every read resolves aliases and
 * fills defaults; every change is checked (a core tool cannot be disabled) and kept in `data`,
 * which the caller saves.
 */
export class ToolGovernance {
  constructor(readonly data: GovernanceData = emptyGovernance()) {}

  entry(name: string): ToolGovernanceEntry {
    const canonical = canonicalToolName(name);
    const stored = this.data.tools[canonical] ?? {};
    const entry: ToolGovernanceEntry = {
      enabled: stored.enabled ?? true,
      core: stored.core ?? DEFAULT_CORE_TOOLS.includes(canonical),
      workerRoutingStrategy: stored.workerRoutingStrategy ?? 'auto',
    };
    if (stored.promptHint !== undefined) entry.promptHint = stored.promptHint;
    if (entry.core) entry.enabled = true;
    return entry;
  }

  /** The entry with an agent's overrides applied; `disabledBy` says which layer turned it off. */
  effective(
    name: string,
    policy: AgentToolPolicy | undefined,
  ): ToolGovernanceEntry & { disabledBy?: 'governance' | 'agent' } {
    const entry: ToolGovernanceEntry & { disabledBy?: 'governance' | 'agent' } = this.entry(name);
    if (!entry.enabled) entry.disabledBy = 'governance';
    if (!policy) return entry;
    const named = (list: readonly string[] | undefined) =>
      (list ?? []).some((n) => canonicalToolName(n) === canonicalToolName(name));
    const pick = <T>(map: Readonly<Record<string, T>> | undefined): T | undefined => {
      for (const [key, value] of Object.entries(map ?? {}))
        if (canonicalToolName(key) === canonicalToolName(name)) return value;
      return undefined;
    };
    if (named(policy.enabled)) {
      entry.enabled = true;
      delete entry.disabledBy;
    }
    if (named(policy.disabled) && !entry.core) {
      entry.enabled = false;
      entry.disabledBy = 'agent';
    }
    const routing = pick(policy.routing);
    if (routing) entry.workerRoutingStrategy = routing;
    const hint = pick(policy.promptHints);
    if (hint !== undefined) entry.promptHint = hint;
    return entry;
  }

  setEnabled(name: string, enabled: boolean): void {
    if (!enabled && this.entry(name).core) {
      throw new ConfigError(`${canonicalToolName(name)} is a core tool and cannot be disabled`);
    }
    this.update(name, { enabled });
  }

  setCore(name: string, core: boolean): void {
    this.update(name, { core });
  }

  setRouting(name: string, strategy: WorkerRoutingStrategy): void {
    if (!WORKER_ROUTING_STRATEGIES.includes(strategy)) {
      throw new ConfigError(
        `unknown worker routing strategy "${strategy}"; use one of ${WORKER_ROUTING_STRATEGIES.join(', ')}`,
      );
    }
    this.update(name, { workerRoutingStrategy: strategy });
  }

  setPromptHint(name: string, hint: string | undefined): void {
    this.update(name, { promptHint: hint });
  }

  /** Canonical names of every tool the store says something about. */
  names(): string[] {
    return Object.keys(this.data.tools).sort();
  }

  private update(name: string, change: Partial<ToolGovernanceEntry>): void {
    const canonical = canonicalToolName(name);
    const next = { ...this.data.tools[canonical], ...change };
    for (const key of Object.keys(next) as (keyof typeof next)[])
      if (next[key] === undefined) delete next[key];
    this.data.tools[canonical] = next;
  }
}
