import { type JSONValue, parseToolResult, type ToolResult } from '@raf/core';
import { timerDelay } from '@raf/core/internal';
import * as z from 'zod';
import { agentRefSchema } from './run-spec.js';

/** The DBOS workflow a sub-agent's delegation in a durable run is (its id: `<run>/<call id>`). */
export const DELEGATION_WORKFLOW = 'raf.durableDelegation';
/** The queue delegations go on; every `raf worker` consumes it (`--concurrency` at a time). */
export const DEFAULT_DELEGATION_QUEUE = 'raf-delegations';

/** The event a delegation publishes its `n`-th proxied call in, and the topic of the answer. */
export const proxyCallKey = (n: number) => `raf.proxy.${n}`;
export const proxyAnswerTopic = (n: number) => `raf.proxy.answer.${n}`;

const json: z.ZodType<JSONValue> = z.json() as z.ZodType<JSONValue>;

/** A signal that aborts at `deadline` (epoch ms); one beyond a timer's reach waits that long. */
export function deadlineSignal(deadline: number): AbortSignal {
  return AbortSignal.timeout(timerDelay(deadline - Date.now()));
}

/** A delegation's input, recorded by DBOS: which run's coordinator delegated what to whom. */
export const delegationSpecSchema = z.object({
  runId: z.string().min(1),
  parentRunId: z.string().min(1),
  callId: z.string().min(1),
  subAgent: z.string().min(1),
  task: z.string(),
  /** The coordinator as its run recorded it: a worker rebuilds it, then takes the sub-agent from it. */
  agent: agentRefSchema,
  /**
   * When the delegation times out (epoch ms; the sub-agent's `timeoutSecs` after it was first
   * enqueued). Recorded with the child's input: a recovered coordinator enqueues the same id
   * again (a no-op) and reads it back, so a recovery never extends the time.
   */
  deadline: z.number().int().positive().optional(),
});
export type DelegationSpec = z.infer<typeof delegationSpecSchema>;

/** What a delegation workflow returns (the delegation tool's `SubAgentOutcome`, never paused). */
export const delegationOutcomeSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('done'), agent: z.string(), text: z.string() }),
  z.object({ status: z.literal('failed'), agent: z.string(), error: z.string() }),
]);
export type DelegationOutcome = z.infer<typeof delegationOutcomeSchema>;

/**
 * The event a delegation keeps its finished tool calls in (all so far, one write per call): the
 * coordinator reports each as a plain run's delegation does (`<sub-agent> → <tool> ✓`).
 */
export const PROGRESS_EVENT = 'raf.progress';
export const progressSchema = z.array(z.object({ callId: z.string(), name: z.string(), ok: z.boolean() }));
export type DelegationProgress = z.infer<typeof progressSchema>;

/** A proxied call as the sub-agent's workflow publishes it for the coordinator. */
export const proxiedCallSchema = z.object({ callId: z.string(), name: z.string(), arguments: json });

const answerSchema = z.object({ result: z.unknown() });

/** The coordinator's answer to a proxied call, read back from a DBOS message. */
export function parseProxiedAnswer(value: unknown): ToolResult {
  return parseToolResult(answerSchema.parse(value).result);
}
