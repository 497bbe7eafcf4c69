import { createHash } from 'node:crypto';
import { HttpError } from '../http/http-error.js';

/**
 * What a client may name a session: short, URL-safe, and a path segment that survives the URL
 * parser: `.` and `..` (even as `%2E`) are normalised away, so a session of that name could be
 * written but never read or deleted through `/v1/sessions/{id}`.
 */
export const CLIENT_SESSION_ID = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/;

/** What a refused session id is told. */
export const CLIENT_SESSION_ID_MESSAGE =
  'expected 1–128 letters, digits, ".", "_" or "-", other than "." and ".."';

/**
 * The store's id of a tenant's session. Each tenant has its own namespace, so one tenant's
 * `sessionId` never reaches (or reveals) another's session of the same name: isolation by
 * construction rather than by a check that could be forgotten on one endpoint.
 */
export function storeSessionId(tenant: string, sessionId: string): string {
  if (!CLIENT_SESSION_ID.test(sessionId))
    throw new HttpError(400, 'invalid_field', `sessionId: ${CLIENT_SESSION_ID_MESSAGE}`);
  const space = createHash('sha256').update(tenant).digest('hex').slice(0, 20);
  return `t${space}:${sessionId}`;
}
