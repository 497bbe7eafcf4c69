import type { AgentResponseUpdate, ApprovalResponse, JSONValue, ToolApprovalRequestUpdate } from '@raf/core';

/** The four typed executors of a node. */
export type NodeKind = 'function' | 'agent' | 'human-input' | 'sub-workflow';

/** Why a node paused the run: it needs an answer from a person, or approvals of tool calls. */
export type HaltRequest =
  | { kind: 'input'; prompt: string; variable?: string }
  | { kind: 'approval'; requests: ToolApprovalRequestUpdate[] };

/** What a paused node gets when the run resumes. */
export interface ResumeData {
  answer?: JSONValue;
  approvals?: readonly ApprovalResponse[];
}

/** The workflow's shared variables, saved with every checkpoint (JSON values only). */
export interface WorkflowState {
  get(key: string): JSONValue | undefined;
  set(key: string, value: JSONValue): void;
  delete(key: string): void;
  has(key: string): boolean;
  keys(): string[];
}

/** What a node's executor sees while it runs. */
export interface NodeContext {
  readonly nodeId: string;
  readonly step: number;
  /** 1 for the first try; higher on retries. */
  readonly attempt: number;
  /** Aborted by the run's signal, its global timeout and the node's own timeout. */
  readonly signal: AbortSignal;
  readonly state: WorkflowState;
  /** Set when this node paused the run and the run resumed with its answer. */
  readonly resume: ResumeData | undefined;
  /** Streams an update of the node (a `node-streaming` event). */
  emit(update: AgentResponseUpdate): void;
  /** Adds a workflow output now (besides the output of an output node). */
  yieldOutput(value: JSONValue): void;
  /** This node's private state, saved with every checkpoint. */
  getNodeState(): JSONValue | undefined;
  setNodeState(value: JSONValue | undefined): void;
}

/** A node's answer: a message for its outgoing edges, or a pause. */
export interface NodeResult {
  output?: JSONValue;
  halt?: HaltRequest;
}

/** The code that runs a node. */
export interface Executor {
  readonly kind: NodeKind;
  /** For display (`raf inspect`): the agent's name, the prompt, the function's name. */
  readonly label?: string;
  handle(input: JSONValue, context: NodeContext): NodeResult | Promise<NodeResult>;
}

export type Backoff =
  | { type: 'fixed'; delayMs: number }
  | { type: 'exponential'; baseMs: number; maxMs: number };

export interface RetryOptions {
  /** Retries after the first try (default 0). */
  maxRetries: number;
  backoff?: Backoff;
  /** Which failures are retried (default: all but cancellation). */
  retryOn?: (error: unknown) => boolean;
  /** After the last try: fail the run (default), skip the node, or hand the input to another node. */
  onExhausted?: 'fail' | 'skip' | { fallback: string };
}

export interface NodeOptions {
  /** Its output is a workflow output. */
  output?: boolean;
  retry?: RetryOptions;
  /** Per try. */
  timeoutMs?: number;
  /** For display. */
  label?: string;
}

export interface GraphNode extends NodeOptions {
  readonly id: string;
  readonly executor: Executor;
  readonly output: boolean;
}

/** Whether a message takes an edge; reads the message and the workflow's variables. */
export type EdgeCondition = (message: JSONValue, state: WorkflowState) => boolean;

export interface SwitchCase {
  target: string;
  /** No condition: the default case. */
  when?: EdgeCondition;
  label?: string;
}

/**
 * `direct` (optionally conditional) sends each message to one target; `fan-out` to all of them;
 * `fan-in` waits for a message from every source and delivers them as one array (source order);
 * `switch` (exclusive gateway) to the first case whose condition holds.
 */
export interface Edge {
  readonly id: string;
  readonly kind: 'direct' | 'fan-out' | 'fan-in' | 'switch';
  readonly sources: readonly string[];
  readonly targets: readonly string[];
  readonly condition?: EdgeCondition;
  readonly cases?: readonly SwitchCase[];
  /** Closes a cycle; delivers at most `maxIterations` messages per run. */
  readonly loopback?: { maxIterations: number };
  readonly label?: string;
}
