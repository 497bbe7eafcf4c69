import {
  type AgentResponseUpdate,
  CancelledError,
  type JSONValue,
  type SessionSnapshot,
  type ToolApprovalRequestUpdate,
} from '@raf/core';
import { safeParseSessionSnapshot, sessionSnapshotJSON } from '@raf/core/internal';
import type { AgentLike, AgentLikeInput } from '../agent/agent-like.js';
import { NodeSession } from '../agent/node-session.js';
import { WorkflowError } from '../errors.js';
import type { Executor, NodeContext } from '../graph/graph-types.js';
import { agentInputOf } from './message-text.js';

export interface AgentExecutorOptions {
  /** The agent's input from the node's message (default: text as text, a `{ role, content }` list as a conversation). */
  input?: (message: JSONValue, context: NodeContext) => AgentLikeInput;
  /** The node's output from the agent's answer (default: the answer's text). */
  output?: (text: string, message: JSONValue, context: NodeContext) => JSONValue | undefined;
  /** Keep the agent's conversation across this node's runs (saved in checkpoints); default a fresh one each time. */
  keepHistory?: boolean;
}

/** Runs one agent turn; a pause for approval pauses the workflow, and the node resumes with the decisions. */
export async function runAgentTurn(
  agent: AgentLike,
  input: AgentLikeInput,
  context: NodeContext,
  options: { keepHistory?: boolean } = {},
): Promise<{ text: string } | { requests: ToolApprovalRequestUpdate[] }> {
  const session = new NodeSession(`${context.nodeId}`, savedSession(context));
  const approvals = context.resume?.approvals;
  const stream =
    approvals && session.pendingApproval
      ? agent.run(undefined, { session, approvals, signal: context.signal })
      : agent.run(input, { session, signal: context.signal });
  let text = '';
  let failure: AgentResponseUpdate | undefined;
  let reason = 'stop';
  const requests: ToolApprovalRequestUpdate[] = [];
  for await (const update of stream) {
    if (update.type === 'finish') {
      reason = update.reason;
      continue;
    }
    if (update.type === 'text-delta') text += update.delta;
    else if (update.type === 'error') failure = update;
    else if (update.type === 'tool-approval-request') requests.push(update);
    context.emit(update);
  }
  if (failure?.type === 'error')
    throw new WorkflowError(
      'node-failed',
      `agent "${agent.name}" failed: ${failure.message} (${failure.code})`,
      {
        nodeId: context.nodeId,
      },
    );
  if (reason === 'cancelled') throw new CancelledError(`agent "${agent.name}" was cancelled`);
  if (reason === 'awaitingApproval') {
    context.setNodeState(sessionSnapshotJSON(session.toJSON()));
    return { requests };
  }
  context.setNodeState(options.keepHistory ? sessionSnapshotJSON(session.toJSON()) : undefined);
  return { text };
}

/** The session this node saved (a checkpoint read back from disk), parsed: a state edited into something else fails the node. */
function savedSession(context: NodeContext): SessionSnapshot | undefined {
  const state = context.getNodeState();
  if (state === undefined) return undefined;
  const parsed = safeParseSessionSnapshot(state, `the saved session of node ${context.nodeId}`);
  if (!parsed.success)
    throw new WorkflowError('node-failed', parsed.error.message, {
      nodeId: context.nodeId,
      cause: parsed.error,
    });
  return parsed.value;
}

/** A node that runs an agent on its message; the answer's text is the node's output. */
export function agentExecutor(agent: AgentLike, options: AgentExecutorOptions = {}): Executor {
  return {
    kind: 'agent',
    label: agent.name,
    async handle(message, context) {
      const input = options.input ? options.input(message, context) : agentInputOf(message);
      const turn = await runAgentTurn(agent, input, context, options);
      if ('requests' in turn) return { halt: { kind: 'approval', requests: turn.requests } };
      const output = options.output ? options.output(turn.text, message, context) : turn.text;
      return output === undefined ? {} : { output };
    },
  };
}
