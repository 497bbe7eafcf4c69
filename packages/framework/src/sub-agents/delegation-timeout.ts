import type { SubAgentSpec } from './sub-agent.js';

/** Default time one delegation may take (`timeoutSecs` on the sub-agent changes it). */
export const DEFAULT_DELEGATION_TIMEOUT_SECS = 600;

/** How long one delegation to `spec` may take, in milliseconds. */
export function delegationTimeoutMs(spec: Pick<SubAgentSpec, 'timeoutSecs'>): number {
  return (spec.timeoutSecs ?? DEFAULT_DELEGATION_TIMEOUT_SECS) * 1000;
}

/**
 * The error the model reads when a delegation ran out of its time. One wording for every runtime
 * (inline, worker process, durable child workflow), so a model's handling of it does not depend
 * on where the sub-agent ran.
 */
export function delegationTimedOut(timeoutMs: number): string {
  return `timed out after ${timeoutMs / 1000} s`;
}
