import type { AgentResponseUpdate, ApprovalResponse, ITool } from '@raf/core';
import { timerDelay } from '@raf/core/internal';
import type { AgentProjection } from '../runtime-policy/agent-projection.js';
import { AgentSession } from '../sessions/agent-session.js';
import { delegatedRunState, delegatedSession } from './delegated-run.js';
import { delegationTimedOut } from './delegation-timeout.js';
import { type PausedDelegation, pausedJSON, raisedRequests } from './paused-run.js';
import { RunTally } from './run-tally.js';
import type { SubAgentOutcome, SubAgentRunRequest, SubAgentSpec } from './sub-agent.js';

/**
 * Runs a delegation in this process (`runtime: inline`) under the same projection as a worker:
 * the tools a worker would not get are not offered; the others run with the sub-agent's own
 * gates, and an approval pauses the root the same way.
 */
export async function runInline(
  spec: SubAgentSpec,
  projection: AgentProjection,
  request: SubAgentRunRequest,
  timeoutMs: number,
  paused?: PausedDelegation,
  answers?: ApprovalResponse[],
): Promise<SubAgentOutcome> {
  const agent = spec.name;
  const offered = new Set(
    projection.tools.filter((t) => t.tool && t.runtime.route !== 'disabled').map((t) => t.name),
  );
  const toolView = (tools: readonly ITool[]) => tools.filter((tool) => offered.has(tool.name));
  const session = paused ? delegatedSession(paused.state) : new AgentSession();
  const timeout = AbortSignal.timeout(timerDelay(timeoutMs));
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const tally = new RunTally();
  const stream = spec.agent.run(paused ? undefined : request.task, {
    session,
    signal,
    toolView,
    ...(paused && { approvals: answers ?? [] }),
  });
  for await (const update of stream as AsyncIterable<AgentResponseUpdate>) {
    request.onUpdate?.(update);
    tally.add(update);
  }
  if (tally.paused) {
    const state: PausedDelegation = { agent, state: delegatedRunState(session), requests: tally.requests };
    return {
      status: 'paused',
      agent,
      requests: raisedRequests(agent, request.callId, tally.requests),
      state: pausedJSON(state),
    };
  }
  if (tally.reason === 'cancelled')
    return {
      status: 'failed',
      agent,
      error: timeout.aborted ? delegationTimedOut(timeoutMs) : 'cancelled',
    };
  if (tally.failure !== undefined) return { status: 'failed', agent, error: tally.failure };
  return { status: 'done', agent, text: tally.answer, ...(tally.usage && { usage: tally.usage }) };
}
