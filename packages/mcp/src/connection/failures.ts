import { CancelledError, getErrorMessage } from '@raf/core';
import { McpServerError } from '../errors.js';
import type { ServerLog } from './server-log.js';

// JSON-RPC codes of the SDK's McpError.
export const CONNECTION_CLOSED = -32000;
export const REQUEST_TIMEOUT = -32001;

export function errorCode(error: unknown): unknown {
  return error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
}

export function isMcpError(error: unknown): boolean {
  return error instanceof Error && error.name === 'McpError';
}

/** An HTTP status from the SDK's transports (`StreamableHTTPError`, `SseError`). */
export function httpStatus(error: unknown): number | undefined {
  if (isMcpError(error) || !(error instanceof Error)) return undefined;
  const code = errorCode(error);
  return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
}

/** The server no longer knows our session (404 per the spec; some servers answer 400 "no valid session"). */
export function sessionExpired(error: unknown): boolean {
  const status = httpStatus(error);
  return status === 404 || (status === 400 && /session/i.test(getErrorMessage(error)));
}

/** Nothing answers (refused, reset, DNS): the server is down or restarting. */
export function unreachable(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return (
    (error instanceof TypeError && /fetch failed/i.test(error.message)) ||
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'UND_ERR_SOCKET'].includes(String(cause?.code))
  );
}

/**
 * A server's answer the SDK's schema refused (a zod error, whose message is the issues as
 * pretty-printed JSON), as one line: `tools[2].inputSchema: expected object, received string`.
 */
export function malformedAnswer(error: unknown): string | undefined {
  const issues = (error as { issues?: unknown } | undefined)?.issues;
  if (!(error instanceof Error) || !Array.isArray(issues) || issues.length === 0) return undefined;
  const where = (path: unknown) =>
    Array.isArray(path)
      ? path
          .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
          .join('')
      : '';
  const shown = issues.slice(0, 3).map((issue: { path?: unknown; message?: unknown }) => {
    const at = where(issue.path);
    const message = String(issue.message ?? 'invalid').slice(0, 200);
    return at ? `${at.slice(0, 200)}: ${message}` : message;
  });
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return `its answer does not fit the MCP schema: ${shown.join('; ')}${more}`;
}

/** A failed start that trying again will not fix. */
export function permanent(error: unknown): boolean {
  const code = errorCode(error);
  const status = httpStatus(error);
  // A login the user must do (`McpLoginNeeded`), or one the SDK gave up on, is not retried.
  if ((error as { permanent?: unknown } | undefined)?.permanent === true) return true;
  if (error instanceof Error && error.name === 'UnauthorizedError') return true;
  // The same server lists the same malformed tools again.
  if (malformedAnswer(error) !== undefined) return true;
  return code === 'ENOENT' || code === 'EACCES' || status === 401 || status === 403;
}

/** `work`, or a `CancelledError` as soon as `signal` fires (the work itself goes on, shared by others). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new CancelledError());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** What a failed request means for the connection: the error to throw, and whether the client is gone. */
export function describeFailure(
  name: string,
  endpoint: string,
  log: ServerLog,
  error: unknown,
  what: string,
  timeoutMs: number,
): { error: McpServerError; lost: boolean } {
  const code = errorCode(error);
  const server = `MCP server '${name}'`;
  const failed = (message: string, lost: boolean) => ({
    error: new McpServerError(name, message, { cause: error }),
    lost,
  });
  if (isMcpError(error) && code === REQUEST_TIMEOUT)
    return failed(
      `${server} did not answer ${what} within ${timeoutMs / 1000} s (the call was cancelled)`,
      false,
    );
  const over = log.oversizedMessage();
  if (isMcpError(error) && code === CONNECTION_CLOSED && over !== undefined)
    // Not a crash: the SDK refuses a stdio message over its limit and closes the connection.
    return failed(
      `${server} sent a message over ${Math.round(over / 1024 / 1024)} MiB during ${what}, more than a stdio message may be; the connection was closed, so whether the call took effect is unknown; the next call restarts it`,
      true,
    );
  if (isMcpError(error) && code === CONNECTION_CLOSED)
    return failed(
      `${server} closed the connection during ${what} (it exited or crashed); whether the call took effect is unknown; the next call restarts it${log.recentStderr()}`,
      true,
    );
  if (unreachable(error) || httpStatus(error) !== undefined) {
    const status = httpStatus(error);
    return failed(
      `${server} (${endpoint}) failed during ${what}: ${status ? `HTTP ${status}` : log.redact(getErrorMessage(error))}; the next call reconnects`,
      true,
    );
  }
  const reason = malformedAnswer(error) ?? getErrorMessage(error);
  return failed(`${server} failed during ${what}: ${log.redact(reason)}`, false);
}
