import {
  type ApprovalResponse,
  type ChatMessage,
  ConfigError,
  type ModelOptions,
  userMessage,
} from '@raf/core';
import type { AgentSession } from '../sessions/agent-session.js';

export interface AgentRunOptions {
  /** The conversation to continue; without one the run uses a fresh, unsaved session. */
  session?: AgentSession;
  /** Answers to the batch the session is paused on; the run resumes it (pass no input then). */
  approvals?: readonly ApprovalResponse[];
  /** Cancels the model call and running tools; the run finishes with `cancelled`. */
  signal?: AbortSignal;
  /** Replaces the agent's own instructions for this run (provider instructions still follow). */
  instructions?: string;
  modelOptions?: ModelOptions;
}

export type AgentInput = string | ChatMessage | readonly ChatMessage[] | undefined;

/** The caller's input as messages, marked `external`. */
export function normalizeInput(input: AgentInput): ChatMessage[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [userMessage(input)];
  const list = Array.isArray(input) ? (input as readonly ChatMessage[]) : [input as ChatMessage];
  return list.map((message) => {
    if (!message || typeof message.role !== 'string' || typeof message.content !== 'string') {
      throw new ConfigError('agent input must be a string, a ChatMessage or an array of ChatMessages');
    }
    return { ...message, source: message.source ?? 'external' };
  });
}
