import type { MessageContent } from '@raf/core';
import { createParser } from 'eventsource-parser';
import * as z from 'zod';
import { StudioHttpError } from './http-json.js';

// The answers of a `raf serve`'s /v1 API (SPEC §14.3, its `/v1/openapi.json`) as the studio reads
// them: whatever comes over the socket is parsed, never cast.

const agentList = z.object({
  agents: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['agent', 'workflow']).catch('agent'),
      description: z.string().optional(),
      file: z.string().optional(),
    }),
  ),
});
const startedRun = z.object({ runId: z.string().min(1), sessionId: z.string().min(1) });
const pendingQuestion = z.object({ questionId: z.string().min(1), callId: z.string().min(1) }).loose();
const runView = z.object({ pendingQuestions: z.array(pendingQuestion).catch([]) });
const errorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
/** One line of `raf run --json`: an object with a `type` (the page reads the rest). */
const runEvent = z.object({ type: z.string() }).loose();

/**
 * The most one answer of the server (a JSON body, or one server-sent event) may hold: the server
 * may be hostile, and an answer past it is an error, never buffered whole (the studio's memory).
 */
export const SERVE_ANSWER_MAX_BYTES = 16 * 1024 * 1024;

const tooLarge = (origin: string, what: string) =>
  new StudioHttpError(
    502,
    'server_answer_too_large',
    `raf serve at ${origin} sent ${what} too large (over ${SERVE_ANSWER_MAX_BYTES} bytes)`,
  );

/**
 * How deep the server's JSON may nest. Its answers and events are shallow (a tool's arguments or
 * result inside an event); a 200k-deep value parses, but the schema check walks it recursively
 * and the stack overflows: such a value is refused before it is parsed.
 */
export const SERVE_JSON_MAX_DEPTH = 256;

/** Whether `text`'s arrays and objects nest deeper than `max` (brackets in strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The server's JSON text parsed, unless it nests past the limit (a `server_answer_invalid`). */
function parseServerJson(text: string, origin: string, what: string): unknown {
  if (nestsDeeperThan(text, SERVE_JSON_MAX_DEPTH))
    throw new StudioHttpError(
      502,
      'server_answer_invalid',
      `raf serve at ${origin} sent ${what} nested deeper than ${SERVE_JSON_MAX_DEPTH} levels`,
    );
  return JSON.parse(text);
}

/** The body as JSON, read up to the cap: past it the response is dropped and the read fails. */
async function cappedJson(response: Response, origin: string): Promise<unknown> {
  if (!response.body) return JSON.parse('');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    // Leaving the loop cancels the body: the rest is never read.
    if (size > SERVE_ANSWER_MAX_BYTES) throw tooLarge(origin, 'an answer');
    chunks.push(chunk);
  }
  return parseServerJson(Buffer.concat(chunks).toString('utf8'), origin, 'an answer');
}

export type ServedAgent = z.infer<typeof agentList>['agents'][number];
export type StartedRun = z.infer<typeof startedRun>;
export type PendingQuestion = z.infer<typeof pendingQuestion>;
export interface ServedEvent {
  /** The event's sequence number (`id:`), for `Last-Event-ID`. */
  seq: number;
  data: z.infer<typeof runEvent>;
}

/**
 * A small client of a `raf serve`'s /v1 API for `raf studio --server URL`: list agents, start a
 * run, read its events (resuming after the last one seen), answer approvals and questions, cancel. The token
 * stays in this process; the page talks to the studio only.
 */
export class ServeClient {
  readonly origin: string;

  constructor(
    url: string,
    private readonly token: string,
  ) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new TypeError(`--server ${url}: not a URL (give the address raf serve printed)`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new TypeError(`--server ${url}: expected an http or https address`);
    if (parsed.username || parsed.password)
      throw new TypeError('--server: give the token with --token or RAF_SERVER_TOKEN, not in the URL');
    this.origin = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  }

  agents(signal: AbortSignal): Promise<ServedAgent[]> {
    return this.json('GET', '/v1/agents', undefined, signal).then((v) => agentList.parse(v).agents);
  }

  startRun(
    agent: string,
    /** The text, or the message's content parts (attachments). */
    body: { input: MessageContent; sessionId?: string },
    signal: AbortSignal,
  ): Promise<StartedRun> {
    return this.json('POST', `/v1/agents/${encodeURIComponent(agent)}/runs`, body, signal).then((v) =>
      startedRun.parse(v),
    );
  }

  approve(
    runId: string,
    approvals: { callId: string; approved: boolean; reason?: string }[],
    signal: AbortSignal,
  ): Promise<StartedRun> {
    return this.json('POST', `/v1/runs/${encodeURIComponent(runId)}/approvals`, { approvals }, signal).then(
      (v) => startedRun.parse(v),
    );
  }

  /** Answers questions of a running call (MCP elicitations) by their `questionId` (`<callId>.<n>`). */
  async answer(
    runId: string,
    answers: {
      questionId: string;
      action: 'accept' | 'decline' | 'cancel';
      content?: Record<string, unknown>;
    }[],
    signal: AbortSignal,
  ): Promise<void> {
    await this.json('POST', `/v1/runs/${encodeURIComponent(runId)}/answers`, { answers }, signal);
  }

  /** The questions the run's calls wait on now, each with its `questionId`. */
  pendingQuestions(runId: string, signal: AbortSignal): Promise<PendingQuestion[]> {
    return this.json('GET', `/v1/runs/${encodeURIComponent(runId)}`, undefined, signal).then(
      (v) => runView.parse(v).pendingQuestions,
    );
  }

  async cancel(runId: string, signal: AbortSignal): Promise<void> {
    await this.json('POST', `/v1/runs/${encodeURIComponent(runId)}/cancel`, undefined, signal);
  }

  /** The run's events after `after` until the run stops (paused, finished, failed, cancelled). */
  async *events(runId: string, after: number, signal: AbortSignal): AsyncGenerator<ServedEvent> {
    const response = await this.fetch(
      'GET',
      `/v1/runs/${encodeURIComponent(runId)}/events`,
      undefined,
      signal,
      {
        accept: 'text/event-stream',
        ...(after > 0 && { 'last-event-id': String(after) }),
      },
    );
    if (!response.body) return;
    const ready: ServedEvent[] = [];
    let problem: Error | undefined;
    // Bytes fed since the last whole event (give or take one chunk): the parser buffers an
    // unfinished one, so a server that never ends it is cut off at the cap.
    let unfinished = 0;
    let finished = false;
    const origin = this.origin;
    const parser = createParser({
      onEvent(event) {
        finished = true;
        const seq = Number(event.id);
        if (!Number.isSafeInteger(seq)) {
          problem ??= new Error(`raf serve sent an event without a sequence number: ${event.id ?? 'none'}`);
          return;
        }
        let value: unknown;
        try {
          value = parseServerJson(event.data, origin, 'an event');
        } catch (error) {
          problem ??=
            error instanceof StudioHttpError ? error : new Error('raf serve sent an event that is not JSON');
          return;
        }
        const parsed = runEvent.safeParse(value);
        if (parsed.success) ready.push({ seq, data: parsed.data });
        else problem ??= new Error('raf serve sent an event that is not a run update');
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      finished = false;
      parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      if (problem) throw problem;
      unfinished = finished ? 0 : unfinished + (chunk as Uint8Array).byteLength;
      if (unfinished > SERVE_ANSWER_MAX_BYTES) throw tooLarge(this.origin, 'an event');
      while (ready.length > 0) yield ready.shift()!;
    }
  }

  private async json(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const response = await this.fetch(method, path, body, signal);
    return cappedJson(response, this.origin);
  }

  /** A request to the server; a refusal becomes the studio's error with the server's code and words. */
  private async fetch(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    signal: AbortSignal,
    extra: Record<string, string> = {},
  ): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.origin}${path}`, {
        method,
        signal,
        // The bearer token is for this origin only: a redirect is an error, never followed.
        redirect: 'error',
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...extra,
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new StudioHttpError(
        502,
        'server_unreachable',
        `raf serve at ${this.origin}: ${(error as Error).message}`,
      );
    }
    if (response.ok) return response;
    const refused = errorBody.safeParse(
      await cappedJson(response, this.origin).catch((error) => {
        if (error instanceof StudioHttpError) throw error;
        return null;
      }),
    );
    // Its 401 is the studio's configuration, not the page's token: say which one is wrong.
    if (response.status === 401)
      throw new StudioHttpError(
        502,
        'server_unauthorized',
        `raf serve at ${this.origin} refused the token (--token, RAF_SERVER_TOKEN)`,
      );
    throw new StudioHttpError(
      response.status,
      refused.success ? refused.data.error.code : 'server_error',
      refused.success ? refused.data.error.message : `raf serve answered ${response.status}`,
    );
  }
}
