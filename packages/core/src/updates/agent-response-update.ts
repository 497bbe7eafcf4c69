import type { JSONSchema, JSONValue } from '../json/json.js';
import type { ToolResult } from '../tool/tool-result.js';
import type { Usage } from './usage.js';

/**
 * Why a model turn or an agent run ended. `toolCalls` appears only between rounds inside the tool
 * loop; callers of an agent see the others.
 */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'toolCalls'
  | 'contentFilter'
  | 'awaitingApproval'
  | 'maxRounds'
  | 'cancelled'
  | 'other';

export const FINISH_REASONS: readonly FinishReason[] = [
  'stop',
  'length',
  'toolCalls',
  'contentFilter',
  'awaitingApproval',
  'maxRounds',
  'cancelled',
  'other',
];

export interface TextDeltaUpdate {
  type: 'text-delta';
  delta: string;
}
export interface ReasoningDeltaUpdate {
  type: 'reasoning-delta';
  delta: string;
}
export interface ToolCallStartUpdate {
  type: 'tool-call-start';
  callId: string;
  name: string;
}
export interface ToolCallArgsUpdate {
  type: 'tool-call-args';
  callId: string;
  delta: string;
}
/** The call is complete: `arguments` holds the whole raw JSON text. */
export interface ToolCallEndUpdate {
  type: 'tool-call-end';
  callId: string;
  name: string;
  arguments: string;
}
export interface ToolCalledUpdate {
  type: 'tool-called';
  callId: string;
  name: string;
  result: ToolResult;
}
/** A line of progress a running tool reported (`ctx.reportProgress`); transient, not part of the answer. */
export interface ToolProgressUpdate {
  type: 'tool-progress';
  callId: string;
  name: string;
  message: string;
}
/** A gated call waits for the caller's decision; the run finishes with `awaitingApproval`. */
export interface ToolApprovalRequestUpdate {
  type: 'tool-approval-request';
  callId: string;
  name: string;
  arguments: JSONValue;
  description: string;
  /** The path or command the call will act on, as resolved by the tool (approve-outside). */
  resolvedTarget?: string;
  /**
   * The chain of sub-agent names the call was made in (`["researcher"]`), when a sub-agent's
   * call paused the root run; absent for the agent's own calls.
   */
  agentPath?: string[];
}
/**
 * A question a running tool puts to the user (an MCP server's elicitation, SPEC §14.4): answered
 * through the run's `onInputRequest`, while the call waits. `form` asks for values matching
 * `schema` (a flat JSON Schema object); `url` asks the user to open `url` (consent only).
 */
export interface InputRequestUpdate {
  type: 'input-request';
  /** The tool call that asks. */
  callId: string;
  /** Who asks: `mcp:<server>`. */
  source: string;
  message: string;
  mode: 'form' | 'url';
  /** `form`: what the answer must match. */
  schema?: JSONSchema;
  /** `url`: the page the user is asked to open (never opened unasked). */
  url?: string;
}

/** The user's answer to an `input-request`: values (`form`), consent (`url`), or no. */
export type InputAnswer =
  | { action: 'accept'; content?: Record<string, JSONValue> }
  | { action: 'decline' }
  | { action: 'cancel' };

export interface UsageUpdate {
  type: 'usage';
  usage: Usage;
}
export interface ResponseMetadataUpdate {
  type: 'response-metadata';
  id?: string;
  model?: string;
}
export interface WarningUpdate {
  type: 'warning';
  message: string;
  code?: string;
}
/** A failure after the stream began. The text received before it is kept, never dropped. */
export interface ErrorUpdate {
  type: 'error';
  code: string;
  message: string;
}
/** Always the last update of a stream. */
export interface FinishUpdate {
  type: 'finish';
  reason: FinishReason;
  /** The provider's own string when `reason` is `other`. */
  rawReason?: string;
  usage?: Usage;
  /** With an output schema: the final answer parsed and validated against it. */
  output?: JSONValue;
}

export type AgentResponseUpdate =
  | TextDeltaUpdate
  | ReasoningDeltaUpdate
  | ToolCallStartUpdate
  | ToolCallArgsUpdate
  | ToolCallEndUpdate
  | ToolCalledUpdate
  | ToolProgressUpdate
  | ToolApprovalRequestUpdate
  | InputRequestUpdate
  | UsageUpdate
  | ResponseMetadataUpdate
  | WarningUpdate
  | ErrorUpdate
  | FinishUpdate;

export type AgentResponseUpdateType = AgentResponseUpdate['type'];
