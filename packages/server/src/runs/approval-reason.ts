import type { ApprovalResponse } from '@raf/core';
import { HttpError } from '../http/http-error.js';

/**
 * The longest reason an approval answer may give. The reason becomes the denied call's result:
 * it reaches the model and stays in the session, so every route that takes approvals (`/v1`,
 * the AI SDK chat, AG-UI, A2A, MCP) holds it to this one limit.
 */
export const MAX_APPROVAL_REASON = 2000;

/** The one message of a reason over the limit, after the field's path. */
export const APPROVAL_REASON_MESSAGE = `at most ${MAX_APPROVAL_REASON} characters`;

/** A 400 naming `path` (e.g. `resume.0.payload.reason`) when `reason` is over the limit. */
export function checkApprovalReason(reason: string | undefined, path: string): void {
  if (reason !== undefined && reason.length > MAX_APPROVAL_REASON)
    throw new HttpError(400, 'invalid_field', `${path}: ${APPROVAL_REASON_MESSAGE}`);
}

/**
 * Every answer's reason within the limit: the registry's own check, so a route that forgets
 * (or a protocol whose schema has no limit) cannot pass a longer one through.
 */
export function checkApprovalReasons(approvals: readonly ApprovalResponse[]): void {
  for (const [i, a] of approvals.entries()) checkApprovalReason(a.reason, `approvals.${i}.reason`);
}
