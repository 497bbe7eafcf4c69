import {
  getErrorMessage,
  type ITool,
  type ToolApprovalRequestUpdate,
  type ToolResult,
  toolFailure,
} from '@raf/core';
import { answerProxiedCall, DEFAULT_DENIAL_REASON, INTERRUPTED_ERROR, manifestOf } from '@raf/framework';
import type { ProxyDecision } from './delegation-pause.js';
import { proxiedCallSchema } from './delegation-spec.js';
import type { DurableTables } from './durable-tables.js';

/** The `n`-th proxied call of the delegation `childId`, as the child published it. */
export interface ProxiedCallToServe {
  childId: string;
  n: number;
  /** The event's value, not yet parsed. */
  raw: unknown;
  /** The coordinator's own instances of the sub-agent's proxied tools, by name. */
  proxied: ReadonlyMap<string, ITool>;
  /** The sub-agent's name (for the refusals it reads). */
  agent: string;
  signal: AbortSignal;
  /** The human's answer, when this call waited for one (a resumed delegation). */
  decision?: ProxyDecision | undefined;
}

/**
 * Serves one proxied call of a durable delegation with the coordinator's instance of the tool:
 * its argument checks, its approval gate, its path guard. The gate decides first: a call that
 * needs approval is answered with the request and is not marked, so a coordinator recovered
 * before the pause was recorded asks again instead of taking it for a call in doubt. A call the
 * gate lets through is marked started (`proxy:<n>`) just before it runs, an approved one
 * (`proxy:<n>:approved`, a start of its own); a call marked before has started and is in doubt
 * (SPEC §14.1): it runs again only when idempotent, else the sub-agent reads the interrupted error.
 */
export async function serveProxiedCall(
  tables: Pick<DurableTables, 'markStarted'>,
  input: ProxiedCallToServe,
): Promise<ToolResult | { approval: ToolApprovalRequestUpdate }> {
  const { childId, n, agent, decision } = input;
  const parsed = proxiedCallSchema.safeParse(input.raw);
  if (!parsed.success) return toolFailure(`Refused: a malformed proxied call from ${agent}`);
  const call = parsed.data;
  const tool = input.proxied.get(call.name);
  if (!tool) return toolFailure(`Refused: ${call.name} does not run in the coordinator for ${agent}`);
  // The answer is for the call the human was shown, never another one under the same number.
  if (decision && decision.callId !== call.callId)
    return toolFailure(`Refused: proxied call ${n} of ${agent} is not the call that was approved`);
  // Denied: nothing runs, and the sub-agent reads what a plain run's denial says.
  if (decision && !decision.approved)
    return toolFailure(`Rejected: ${decision.reason || DEFAULT_DENIAL_REASON}`);
  const key = decision ? `proxy:${n}:approved` : `proxy:${n}`;
  const start = async (): Promise<ToolResult | undefined> => {
    const first = await tables.markStarted(childId, key);
    return first || manifestOf(tool).idempotent === true ? undefined : toolFailure(INTERRUPTED_ERROR);
  };
  try {
    const answer = await answerProxiedCall(tool, call, input.signal, decision?.target, start);
    if ('result' in answer) return answer.result;
    if (decision) return toolFailure(`Refused: ${call.name} asked again for an approval it was given`);
    const { description, target } = answer.approval;
    return {
      approval: {
        type: 'tool-approval-request',
        callId: call.callId,
        name: call.name,
        arguments: call.arguments,
        description,
        ...(target !== undefined && { resolvedTarget: target }),
      },
    };
  } catch (error) {
    return toolFailure(`Framework error: ${getErrorMessage(error)}`);
  }
}
