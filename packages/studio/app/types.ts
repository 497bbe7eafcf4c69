// The JSON the studio API returns (SPEC §7.1, §11.1, §13). The page only reads these fields; the
// routes, states and reasons in them were decided by the server's `runtimeDiagnostic()`.

export type Lang = 'en' | 'zh-CN';
export type Label = Record<Lang, string>;
export type Route = 'worker-local' | 'main-process-proxy' | 'disabled';

export interface Manifest {
  kind: string;
  executionMode: 'parallel' | 'sequential';
  supportedInWorker: boolean;
  workerRoutingHint: string;
  requiresShell: boolean;
  requiresWrite: boolean;
  requiresSkillScope: boolean;
}

export interface Governance {
  enabled: boolean;
  core: boolean;
  promptHint: string | null;
  workerRoutingStrategy: string;
  disabledBy?: 'governance' | 'agent';
}

export interface DiagnosedTool {
  name: string;
  aliases: string[];
  manifest: Manifest;
  governance: Governance;
  profile: { route: Route };
  runtime: { state: string; route: Route; blockedReason: string | null; label: Label | null };
}

export interface Diagnostic {
  agent: string;
  workerPolicy: { workspaceRoots: string[]; allowShell: boolean; readonly: boolean } | null;
  tools: DiagnosedTool[];
  subAgents: Diagnostic[];
}

export interface PlanTool {
  name: string;
  kind: string;
  source: 'static' | 'workspace' | 'injected';
  workspace: string | null;
  context?: string;
  server?: string;
  gated: boolean;
  approval: string;
  executionMode: string;
  route: Route;
}

/** A `toolPolicy` as an agent file writes it (names as spelled there). */
export interface ToolPolicy {
  disabled?: string[];
  enabled?: string[];
  routing?: Record<string, string>;
  promptHints?: Record<string, string>;
}

/** `POST /api/agents/:id/yaml/preview`: the changed file, unsaved. */
export interface ChangedFile {
  file: string;
  target: string;
  yaml: string;
  section: string;
}

export interface Plan {
  name: string;
  model: { provider: string; id: string };
  toolLoop: boolean;
  maxToolRounds: number;
  contexts: { kind: string; name: string; provider?: string; order: number }[];
  tools: PlanTool[];
  toolPolicy: ToolPolicy | null;
  orchestration: {
    mode: string;
    maxIterations: number;
    subAgents: { name: string; runtime: string; toolPolicy: ToolPolicy | null }[];
  } | null;
  runtime: Diagnostic;
  warnings: string[];
}

export interface GovernedTool {
  name: string;
  aliases: string[];
  manifest: Manifest | null;
  governance: Governance;
  profile: { route: Route } | null;
}

export interface GovernanceReport {
  file: string;
  strategies: string[];
  tools: GovernedTool[];
}

export interface AgentSummary {
  id: string;
  name: string;
  file: string;
  kind: 'agent' | 'workflow';
}

export interface Labels {
  reasons: Record<string, Label>;
  states: Record<string, Label>;
  routes: Record<Route, Label>;
  governance: Record<'disabled' | 'disabledByAgent' | 'core', Label>;
}

/** One line of `raf run --json` (SPEC §11.1). */
export type RunUpdate =
  | { type: 'text-delta' | 'reasoning-delta'; delta: string }
  | { type: 'tool-call'; callId: string; name: string; arguments: unknown }
  | {
      type: 'tool-result';
      callId: string;
      name: string;
      result: { ok: boolean; data?: unknown; error?: string };
    }
  | { type: 'tool-progress'; callId: string; name: string; message: string }
  | {
      type: 'tool-approval-request';
      callId: string;
      name: string;
      arguments: unknown;
      description: string;
      resolvedTarget?: string;
      agentPath?: string[];
    }
  | {
      type: 'input-request';
      callId: string;
      source: string;
      message: string;
      mode: 'form' | 'url';
      schema?: { properties?: Record<string, unknown>; required?: string[] };
      url?: string;
    }
  | { type: 'warning'; message: string }
  | { type: 'error'; code: string; message: string }
  | { type: 'finish'; reason: string; sessionId: string };

export interface RunStart {
  runId: string;
  sessionId: string;
  agent: string;
  /** Absent against a `raf serve`, which does not publish the runtime diagnostic. */
  runtime?: Diagnostic;
}

/** `GET /api/config`: what this studio serves. */
export interface StudioConfig {
  /** The `raf serve` the studio talks to (`raf studio --server`), or null for the local agents. */
  server: string | null;
  /** Whether a message may carry files (the /v1 API takes text). */
  attachments: boolean;
  /** The server's cap on one attached file. */
  attachmentMaxBytes: number;
}
