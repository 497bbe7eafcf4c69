import type { RunStart, RunUpdate } from './types.js';

/** An API answer that was not 2xx: the server's `{ error: { code, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function failure(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as {
    error?: { code: string; message: string };
  } | null;
  return new ApiError(
    response.status,
    body?.error?.code ?? 'http_error',
    body?.error?.message ?? `${response.status} ${response.statusText}`,
  );
}

/** The page was opened with `?token=`; the server set a cookie, and the header is sent too. */
const token = new URLSearchParams(location.search).get('token');
const headers = (json: boolean): Record<string, string> => ({
  ...(token && { authorization: `Bearer ${token}` }),
  ...(json && { 'content-type': 'application/json' }),
});

export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: headers(false) });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

export async function sendJson<T>(method: 'PATCH' | 'POST', path: string, body: unknown): Promise<T> {
  const response = await fetch(path, { method, headers: headers(true), body: JSON.stringify(body) });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

export interface RunEvents {
  onStart(start: RunStart): void;
  onUpdate(update: RunUpdate): void;
  onPreview(preview: { callId: string; diff: string }): void;
}

/** POSTs and reads the server-sent events of a run (EventSource cannot POST). */
export async function streamRun(
  path: string,
  body: unknown,
  events: RunEvents,
  signal?: AbortSignal,
): Promise<void> {
  // Aborting closes the stream; the server cancels the turn when its stream closes.
  const response = await fetch(path, {
    method: 'POST',
    headers: headers(true),
    body: JSON.stringify(body),
    ...(signal && { signal }),
  });
  if (!response.ok || !response.body) throw await failure(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (!data) continue;
      const parsed = JSON.parse(data) as unknown;
      if (event === 'run') events.onStart(parsed as RunStart);
      else if (event === 'approval-preview') events.onPreview(parsed as { callId: string; diff: string });
      else events.onUpdate(parsed as RunUpdate);
    }
  }
}
