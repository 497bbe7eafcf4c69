import type { ApprovalResponse } from '../chat-client/chat-client.js';
import type { JSONSchema, JSONValue } from '../json/json.js';
import type { InputAnswer, InputRequestUpdate } from '../updates/agent-response-update.js';
import type { ToolManifest } from './tool-manifest.js';
import type { ToolResult } from './tool-result.js';

/** Declarative kind of a tool (the YAML `kind`): `file`, `web`, `function`, `mcp`, … */
export type ToolKind = string;

/** What every tool call gets besides its arguments. */
export interface ToolCallInfo {
  /** Fires when the run is cancelled or the call times out; pass it to HTTP calls and child processes. */
  signal: AbortSignal;
  callId: string;
  /** The id of the session the run belongs to (set by the agent). */
  sessionId?: string;
  /**
   * A progress line for long work: the run streams it as a `tool-progress` update while the tool
   * runs (the CLI shows it as a transient line).
   */
  reportProgress?: (message: string) => void;
  /**
   * Puts a question to the user while the call runs (an MCP elicitation): the run streams an
   * `input-request` update and waits for the caller's `onInputRequest`; without one the question
   * is declined (with a warning). The call's timeout includes the wait.
   */
  requestInput?: (request: InputRequest) => Promise<InputAnswer>;
  /**
   * True when the tool loop already checked the arguments with this tool's `validateArguments`
   * and passes the value it returned: `execute` need not parse them again.
   */
  argumentsValidated?: boolean;
  /**
   * True when a human approved this call. A tool that gates its own calls refuses an unapproved
   * call that needs approval when it runs (its target changed after the gate was asked).
   */
  approved?: boolean;
  /** The `resolveTarget` value the human approved: a tool now acting on another target refuses. */
  approvedTarget?: string;
  /**
   * Set when this call suspended the run earlier (it threw a `ToolSuspension`, `@raf/framework`)
   * and the run resumes: the state it saved and the caller's answers to the requests it raised.
   */
  resume?: ToolResume;
}

/** What `requestInput` asks: the update without its type and call id. */
export type InputRequest = Omit<InputRequestUpdate, 'type' | 'callId'>;

/** What a suspended call gets back on resume. */
export interface ToolResume {
  state: JSONValue;
  /** The answers to the requests the call raised (unanswered requests are absent: denied). */
  approvals: ApprovalResponse[];
}

/**
 * The run context field: the value the caller passed as `agent.run(input, { context })`, typed by
 * the tool. A tool that names no context type may be called without one.
 */
export type RunContextField<Context> = unknown extends Context ? { context?: Context } : { context: Context };

/** What `execute` receives: the call's signal and ids, and the caller's typed run context. */
export type ToolExecutionContext<Context = unknown> = ToolCallInfo & RunContextField<Context>;

/** What `requiresApproval` receives when the loop asks about one call. */
export interface ToolApprovalContext<Context = unknown> {
  callId: string;
  sessionId?: string;
  context: Context;
}

/** What the model is told about a tool. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JSONSchema;
}

/**
 * A tool the loop can run. `Context` is the type of the run context (`agent.run(input, { context
 * })`) the tool reads as `ctx.context`. Plain `ITool` accepts a tool of any context type (lists of
 * tools); `AgentBuilder<Context>` checks that each tool's context fits the agent's.
 */
// biome-ignore lint/suspicious/noExplicitAny: `ITool` alone must hold tools of every context type
export interface ITool<Args = unknown, Context = any> extends ToolDefinition {
  kind?: ToolKind;
  /** Runtime-policy facts (execution mode, worker routing, `timeoutMs`); the default manifest when absent. */
  manifest?: ToolManifest;
  /**
   * Whether this call needs a human decision first. Called with the parsed arguments (and the
   * call's run context) per call; called without arguments to ask "can this tool ever be gated"
   * (for `explain`).
   */
  requiresApproval?(args?: Args, context?: ToolApprovalContext<Context>): boolean | Promise<boolean>;
  /**
   * Checks a call's parsed arguments (a JSON object) before execution; without it the tool loop
   * checks them against `parameters` with a JSON Schema validator. A failure describes what is
   * wrong. `args`, when returned, is what `execute` receives instead of the raw object, with
   * `context.argumentsValidated` set (e.g. a zod schema's output).
   */
  validateArguments?(args: unknown): { ok: true; args?: unknown } | { ok: false; error: string };
  /** The path or command a call will act on, shown in approval prompts and bound to the approval. */
  resolveTarget?(args: Args): string | undefined | Promise<string | undefined>;
  execute(args: Args, context: ToolExecutionContext<Context>): Promise<ToolResult>;
}

/** Asks a tool whether a call needs approval; tools without the method never do. */
export async function toolRequiresApproval<Args, Context>(
  tool: ITool<Args, Context>,
  args?: Args,
  context?: ToolApprovalContext<Context>,
): Promise<boolean> {
  return tool.requiresApproval ? await tool.requiresApproval(args, context) : false;
}

/** The definition sent to the model, without the runtime parts. */
export function toToolDefinition(tool: ToolDefinition): ToolDefinition {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}
