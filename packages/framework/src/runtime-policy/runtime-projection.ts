import type { ToolManifest } from '@raf/core';
import {
  type BlockedReason,
  type Label,
  RUNTIME_LABELS,
  type RuntimeRoute,
  type RuntimeState,
  routeOfState,
} from './runtime-labels.js';
import type { ToolGovernanceEntry } from './tool-governance.js';
import type { WorkerPolicy } from './worker-policy.js';

export interface ProjectionInput {
  manifest: ToolManifest;
  /** The effective governance (global + agent overrides). */
  governance: ToolGovernanceEntry & { disabledBy?: 'governance' | 'agent' };
  /** Whether the tool is in the (sub-)agent's selection. */
  selected: boolean;
  /** Whether the tool acts on a workspace (a scope tool): it needs a root to run in a worker. */
  needsWorkspaceRoot: boolean;
  policy: WorkerPolicy;
}

/** Where a tool runs this session, and why not elsewhere (SPEC §7.1 `runtime`). */
export interface ToolRuntime {
  state: RuntimeState;
  route: RuntimeRoute;
  blockedReason: BlockedReason | null;
  label: Label | null;
  /** Set when governance or the agent's `toolPolicy` turned the tool off. */
  disabledBy?: 'governance' | 'agent';
}

function blocked(state: RuntimeState, reason: BlockedReason): ToolRuntime {
  return { state, route: routeOfState(state), blockedReason: reason, label: RUNTIME_LABELS.reasons[reason] };
}

const LOCAL: ToolRuntime = Object.freeze({
  state: 'worker-local',
  route: 'worker-local',
  blockedReason: null,
  label: null,
}) as ToolRuntime;

/**
 * The runtime projection of seed 002: from a tool's manifest, its governance, the selection and
 * the worker policy to the state it has for a worker this session. A pure function: CLI, API and
 * studio all print its result and never re-derive it.
 */
export function projectToolRuntime(input: ProjectionInput): ToolRuntime {
  const { manifest, governance, policy } = input;
  if (!input.selected) return blocked('not-selected', 'not_selected_for_subagent');
  if (!governance.enabled) {
    const label = governance.disabledBy === 'agent' ? 'disabledByAgent' : 'disabled';
    return {
      state: 'disabled-in-worker',
      route: 'disabled',
      blockedReason: null,
      label: RUNTIME_LABELS.governance[label],
      disabledBy: governance.disabledBy ?? 'governance',
    };
  }
  const strategy = governance.workerRoutingStrategy;
  if (strategy === 'force-disabled' || (!manifest.supportedInWorker && strategy === 'auto'))
    return blocked('disabled-in-worker', 'unsupported_in_worker');
  if (input.needsWorkspaceRoot && policy.workspaceRoots.length === 0)
    return blocked('disabled-in-worker', 'workspace_root_required');
  if (manifest.requiresShell && !policy.allowShell)
    return blocked('disabled-in-worker', 'shell_disabled_by_policy');
  if (manifest.requiresWrite && policy.readonly)
    return blocked('disabled-in-worker', 'write_blocked_by_readonly_policy');
  if (strategy === 'force-local') return LOCAL;
  if (strategy === 'force-main-process-proxy')
    return blocked('main-process-proxied', 'requires_main_process_proxy');
  switch (manifest.workerRoutingHint) {
    case 'local':
      return LOCAL;
    case 'main-process-proxy':
      return blocked('main-process-proxied', 'requires_main_process_proxy');
    default:
      return blocked('disabled-in-worker', 'unsupported_in_worker');
  }
}

/** The static, session-free route of a tool: its manifest under its governance (the "profile"). */
export function profileRoute(
  manifest: ToolManifest,
  governance: Pick<ToolGovernanceEntry, 'enabled' | 'workerRoutingStrategy'>,
): RuntimeRoute {
  if (!governance.enabled) return 'disabled';
  switch (governance.workerRoutingStrategy) {
    case 'force-disabled':
      return 'disabled';
    case 'force-local':
      return 'worker-local';
    case 'force-main-process-proxy':
      return 'main-process-proxy';
    default:
      if (!manifest.supportedInWorker) return 'disabled';
      return manifest.workerRoutingHint === 'local'
        ? 'worker-local'
        : manifest.workerRoutingHint === 'main-process-proxy'
          ? 'main-process-proxy'
          : 'disabled';
  }
}
