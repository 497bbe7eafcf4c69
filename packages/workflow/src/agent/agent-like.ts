import type { AgentResponseUpdate, ApprovalResponse, ChatMessage, ISession } from '@raf/core';

/** What an agent run takes: text, one message, or a conversation. */
export type AgentLikeInput = string | ChatMessage | readonly ChatMessage[] | undefined;

export interface AgentLikeRunOptions {
  session?: ISession;
  signal?: AbortSignal;
  /** Answers to the approvals the session is paused on (then no input). */
  approvals?: readonly ApprovalResponse[];
}

/**
 * An agent as the workflow sees it: a name and a streamed run that ends with `finish`.
 * `ChatClientAgent` (`@raf/framework`) and `WorkflowAgent` both fit, so workflows nest.
 */
export interface AgentLike {
  readonly name: string;
  readonly description?: string | undefined;
  run(input: AgentLikeInput, options?: AgentLikeRunOptions): AsyncIterable<AgentResponseUpdate>;
}
