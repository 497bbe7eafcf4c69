import {
  type ApprovalResponse,
  type ChatMessage,
  ConfigError,
  type ISession,
  type ModelOptions,
  type SessionJournal,
  userMessage,
} from '@raf/core';
import type { InputRequestHandler } from '../pipeline/input-requests.js';
import type { ToolView } from '../pipeline/tool-view.js';
import type { OutputSpec } from '../run/structured-output.js';

export interface AgentRunOptions<Context = unknown> {
  /**
   * The conversation to continue (any `ISession`: `AgentSession` or your own); without one the
   * run uses a fresh, unsaved session.
   */
  session?: ISession;
  /**
   * Where the turn writes each step as it completes (SPEC §14.1): the input with the assistant
   * message and its calls, `calls-started` before they run, each tool result, provider state, a
   * paused batch. A store hands one out per session; after a crash, loading the session folds the
   * journal in and the next run continues the interrupted turn.
   */
  journal?: SessionJournal;
  /** Answers to the batch the session is paused on; the run resumes it (pass no input then). */
  approvals?: readonly ApprovalResponse[];
  /** Cancels the model call and running tools; the run finishes with `cancelled`. */
  signal?: AbortSignal;
  /** Replaces the agent's own instructions for this run (provider instructions still follow). */
  instructions?: string;
  modelOptions?: ModelOptions;
  /** The run context: every tool's `execute` and `requiresApproval` receive it as `ctx.context`. */
  context?: Context;
  /**
   * Answers the questions tools put to the user while they run (an MCP server's elicitation):
   * each is also streamed as an `input-request` update. Without it they are declined, with a warning.
   */
  onInputRequest?: InputRequestHandler;
  /**
   * Changes the tools this run offers, declared and injected alike (after governance): drop some,
   * reword them, or stand in for them. A sub-agent's worker runs with its projection this way.
   */
  toolView?: ToolView;
  /**
   * A structured answer (SPEC §15): a zod schema or a JSON Schema, over the agent's own
   * `outputSchema`. The final answer is validated (one repair turn) and `finish.output` carries it.
   */
  output?: OutputSpec;
}

/**
 * The options argument of `agent.run` / `agent.generate`: optional, unless the agent's context
 * type leaves out `undefined`; then it must carry the `context`.
 */
export type AgentRunArgs<Context> = undefined extends Context
  ? [options?: AgentRunOptions<Context>]
  : [options: AgentRunOptions<Context> & { context: Context }];

export type AgentInput = string | ChatMessage | readonly ChatMessage[] | undefined;

/** The caller's input as messages, marked `external`. */
export function normalizeInput(input: AgentInput): ChatMessage[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [userMessage(input)];
  const list = Array.isArray(input) ? (input as readonly ChatMessage[]) : [input as ChatMessage];
  return list.map((message) => {
    if (
      !message ||
      typeof message.role !== 'string' ||
      (typeof message.content !== 'string' && !Array.isArray(message.content))
    ) {
      throw new ConfigError('agent input must be a string, a ChatMessage or an array of ChatMessages');
    }
    return { ...message, source: message.source ?? 'external' };
  });
}
