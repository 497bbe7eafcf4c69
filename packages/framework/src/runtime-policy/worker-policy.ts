import type { ToolManifest } from '@raf/core';
import { canonicalToolName } from './tool-governance.js';

/** What a worker process may do: the roots it sees, whether it may run a shell, whether it may write. */
export interface WorkerPolicy {
  workspaceRoots: string[];
  allowShell: boolean;
  readonly: boolean;
}

/** The session a worker would serve: its working folder and what the parent allows. */
export interface WorkerSessionContext {
  /** The session's working folder (the parent workspace's main root), if any. */
  cwd?: string;
  /** More roots (the parent workspace's other roots). */
  roots?: readonly string[];
  /** Whether the parent lets a worker run shell commands at all (default true). */
  shellAllowed?: boolean;
  /** Whether the parent lets a worker write at all (default true). */
  writeAllowed?: boolean;
}

type Manifests = ReadonlyMap<string, ToolManifest> | Readonly<Record<string, ToolManifest>>;

function manifestIn(manifests: Manifests, name: string): ToolManifest | undefined {
  const canonical = canonicalToolName(name);
  return manifests instanceof Map
    ? (manifests.get(name) ?? manifests.get(canonical))
    : ((manifests as Record<string, ToolManifest>)[name] ??
        (manifests as Record<string, ToolManifest>)[canonical]);
}

/**
 * Derives a worker's policy from its session and the tools selected for it (seed 002): the roots
 * are the session's folder and extra roots without duplicates; the shell is allowed only when a
 * selected tool needs one and the parent allows it; the worker is read-only unless a selected
 * tool writes and the parent allows writing. A worker never gets more than it needs.
 */
export function buildSubprocessWorkerPolicy(
  session: WorkerSessionContext,
  manifests: Manifests,
  selected: Iterable<string>,
): WorkerPolicy {
  const chosen = [...selected].map((name) => manifestIn(manifests, name)).filter((m) => m !== undefined);
  const workspaceRoots = [
    ...new Set([session.cwd, ...(session.roots ?? [])].filter((r): r is string => !!r)),
  ];
  return {
    workspaceRoots,
    allowShell: chosen.some((m) => m.requiresShell) && session.shellAllowed !== false,
    readonly: !(chosen.some((m) => m.requiresWrite) && session.writeAllowed !== false),
  };
}
