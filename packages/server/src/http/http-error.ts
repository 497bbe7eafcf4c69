import type { ServerResponse } from 'node:http';
import { RafError } from '@raf/core';

/**
 * A request the server refuses, answered as `{ error: { code, message } }` with `status`. A
 * `RafError` (code `RAF_VALIDATION`) so code that calls the registry directly can tell it apart.
 */
export class HttpError extends RafError {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super('RAF_VALIDATION', message, options);
    this.name = 'HttpError';
  }

  static isHttpError(error: unknown): error is HttpError {
    return RafError.isInstance(error) && typeof (error as { status?: unknown }).status === 'number';
  }
}

/**
 * The client went away while its request was read (it closed the connection mid-body): nothing
 * is wrong with the server, and nobody is left to answer. Not an `HttpError`, so a route that
 * turns a bad body into a protocol error (A2A, MCP) lets it through to the app, which drops it.
 */
export class ClientGoneError extends Error {
  constructor(options: { cause?: unknown } = {}) {
    super('the client closed the connection before its request was read', options);
    this.name = 'ClientGoneError';
  }
}

/** Node's errors of a request stream whose client went away (`aborted`, a reset, a premature close). */
export function isClientAbort(error: unknown): boolean {
  if (error instanceof ClientGoneError) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    code === 'ECONNRESET' ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    code === 'ECONNABORTED' ||
    code === 'EPIPE' ||
    (error instanceof Error && error.message === 'aborted')
  );
}

/**
 * A known path asked with a method it does not take: 405 with the `Allow` header (RFC 9110 §15.5.6
 * requires it; the MCP Streamable HTTP transport names it), never 400 or 404.
 */
export function methodNotAllowed(
  res: ServerResponse,
  method: string | undefined,
  path: string,
  allow: readonly string[],
): HttpError {
  res.setHeader('allow', allow.join(', '));
  return new HttpError(
    405,
    'method_not_allowed',
    `${method ?? 'GET'} ${path} is not allowed (${allow.join(', ')})`,
  );
}

/**
 * A path that is read (GET): HEAD is taken too, as RFC 9110 §9.3.2 asks (the same answer without
 * its body; Node leaves the body out). Any other method is 405 naming both.
 */
export function readOnly(res: ServerResponse, method: string | undefined, path: string): void {
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(res, method, path, ['GET', 'HEAD']);
}

/** The answer of every endpoint to something it cannot see: another tenant's run is not there. */
export function notFound(what: string): HttpError {
  return new HttpError(404, 'not_found', `${what} not found`);
}
