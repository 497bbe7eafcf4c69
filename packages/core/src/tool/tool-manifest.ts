/** Governance category of a tool (tool runtime policy, SPEC §7). */
export type ToolCategory = 'builtin' | 'memory' | 'skill' | 'delegation' | 'admin' | 'custom';
export type ExecutionMode = 'parallel' | 'sequential';
export type WorkerRoutingHint = 'local' | 'main-process-proxy' | 'disabled';

/** Static facts about a tool that the loop and the runtime policy read; never re-derived elsewhere. */
export interface ToolManifest {
  kind: ToolCategory;
  /** `sequential` tools of one model turn run one at a time, in call order. */
  executionMode: ExecutionMode;
  supportedInWorker: boolean;
  workerRoutingHint: WorkerRoutingHint;
  requiresShell: boolean;
  requiresWrite: boolean;
  requiresSkillScope: boolean;
  /**
   * How long one call may run before the loop aborts its signal and answers the model with a
   * timeout error. Unset: the agent's default (120 s unless configured).
   */
  timeoutMs?: number;
}

/** The manifest of a user tool that says nothing: parallel, custom, proxied from workers. */
export const DEFAULT_TOOL_MANIFEST: Readonly<ToolManifest> = Object.freeze({
  kind: 'custom',
  executionMode: 'parallel',
  supportedInWorker: true,
  workerRoutingHint: 'main-process-proxy',
  requiresShell: false,
  requiresWrite: false,
  requiresSkillScope: false,
});

export function createToolManifest(overrides: Partial<ToolManifest> = {}): ToolManifest {
  return { ...DEFAULT_TOOL_MANIFEST, ...overrides };
}
