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
  /**
   * Running a call twice has the effect of running it once (reads, lookups). After a crash a call
   * that started and left no result is *in doubt*: an idempotent tool's call is run again on
   * resume, any other's is answered with an "interrupted" error (SPEC §14.1). Unset: not idempotent.
   */
  idempotent?: boolean;
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
