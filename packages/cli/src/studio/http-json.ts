import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request the studio API refuses: answered as `{ error: { code, message } }` with `status`. */
export class StudioHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StudioHttpError';
  }
}

/** The most a request body may hold: the API takes small JSON objects only. */
const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

export function sendError(res: ServerResponse, error: StudioHttpError): void {
  sendJson(res, error.status, { error: { code: error.code, message: error.message } });
}

/** The JSON object of a request body; anything else is a 4xx naming what was wrong. */
export async function readJsonObject(
  req: IncomingMessage,
  maxBytes = MAX_BODY_BYTES,
): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('application/json'))
    throw new StudioHttpError(415, 'unsupported_media_type', 'the body must be application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes)
      throw new StudioHttpError(413, 'body_too_large', `the body is larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new StudioHttpError(400, 'invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StudioHttpError(400, 'invalid_body', 'the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Refuses fields the endpoint does not know, so a typo is an error rather than ignored. */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length > 0)
    throw new StudioHttpError(
      400,
      'unknown_field',
      `unknown field ${unknown.map((k) => `"${k}"`).join(', ')}; expected ${allowed.join(', ')}`,
    );
}

/** A server-sent events stream: `send(data)` for a message, `send(data, event)` for a named event. */
export function openEventStream(res: ServerResponse) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  return {
    send(data: unknown, event?: string) {
      if (res.writableEnded) return;
      res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
    },
    end() {
      if (!res.writableEnded) res.end();
    },
  };
}
export type EventStream = ReturnType<typeof openEventStream>;
