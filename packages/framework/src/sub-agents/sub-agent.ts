import type {
  AgentResponseUpdate,
  ApprovalResponse,
  ITool,
  JSONValue,
  ToolApprovalRequestUpdate,
  Usage,
} from '@raf/core';
import type { ChatClientAgent } from '../agent/chat-client-agent.js';
import type { AgentToolPolicy } from '../runtime-policy/tool-governance.js';

/**
 * How a worker process gets the sub-agent: it imports `module` (an absolute path or a package
 * name), calls its export `export` with `options` and uses the `{ agent, tools }` it returns. The
 * reference travels as data, so `options` must be plain JSON.
 */
export interface WorkerFactoryRef {
  module: string;
  export: string;
  options: JSONValue;
}

/** What a sub-agent factory returns: the agent, and every tool it can have (for its projection). */
export interface SubAgentFactoryResult {
  agent: ChatClientAgent;
  /** Its tools known before a run (declared, routed to a workspace, injected); default `knownTools(agent)`. */
  tools?: readonly ITool[];
}

/** The function a `WorkerFactoryRef` names. */
export type SubAgentFactory = (
  options: JSONValue,
  context: { signal: AbortSignal },
) => Promise<SubAgentFactoryResult> | SubAgentFactoryResult;

/** A sub-agent the parent can delegate to (`delegate_task`, `delegate_parallel`, or a `SubAgentRunner`). */
export interface SubAgentSpec {
  name: string;
  /** What it is good for: the coordinating model reads it. */
  description?: string;
  /**
   * The sub-agent built in this process: runs it when inline, holds the parent's instances of its
   * proxied tools (a worker's proxied calls run here), and is what `runtimeDiagnostic` projects.
   */
  agent: ChatClientAgent;
  /** Its tools known before a run; default `knownTools(agent)`. */
  tools?: readonly ITool[];
  /** How a worker rebuilds it. Without one the sub-agent can only run inline. */
  worker?: WorkerFactoryRef;
  /** `worker` (default when `worker` is set): a child process per delegation; `inline`: in this process. */
  runtime?: 'worker' | 'inline';
  /** Seconds one delegation may take before its worker is killed (default 600). */
  timeoutSecs?: number;
  /** Its own overrides over the parent's (disables add up; the parent's cannot be lifted). */
  toolPolicy?: AgentToolPolicy;
}

/** One delegation. */
export interface SubAgentRunRequest {
  /** The sub-agent's name. */
  agent: string;
  task: string;
  /**
   * Unique in the root session (the delegating call's id, `/<index>` within `delegate_parallel`):
   * prefixes the ids of the approval requests the sub-agent raises.
   */
  callId: string;
  signal?: AbortSignal;
  /** Set when the delegation paused for approval earlier: its state and the caller's answers. */
  resume?: { state: JSONValue; approvals: readonly ApprovalResponse[] };
  /** Every update of the sub-agent's run, as it streams. */
  onUpdate?: (update: AgentResponseUpdate) => void;
}

/** How a delegation ended. */
export type SubAgentOutcome =
  | { status: 'done'; agent: string; text: string; usage?: Usage }
  | { status: 'failed'; agent: string; error: string }
  /** Waiting for approval: `requests` (ids prefixed, `agentPath` set) go to the root; `state` resumes it. */
  | { status: 'paused'; agent: string; requests: ToolApprovalRequestUpdate[]; state: JSONValue };

/**
 * What the delegation tools (`createDelegationTools`) need of a runner: the roster the model reads
 * and one delegation. `createSubAgentRunner` is the one with worker processes and projections; a
 * runner of other agents (in this process, on another host) implements just this.
 */
export interface DelegationRunner {
  readonly subAgents: readonly Pick<SubAgentSpec, 'name' | 'description'>[];
  run(request: SubAgentRunRequest): Promise<SubAgentOutcome>;
}

/**
 * Runs sub-agents, each delegation in its own worker process (or inline), with its projected tools
 * and the parent's gates. The delegation tools (`createDelegationTools`) are one client of it.
 */
export interface SubAgentRunner extends DelegationRunner {
  readonly subAgents: readonly SubAgentSpec[];
  /** Starts a spare worker now, so the next delegation does not wait for a process to boot; resolves once it is loaded. */
  warm(): Promise<void>;
  /** Ends spare and parked workers. Running delegations are not waited for. */
  close(): Promise<void>;
}
