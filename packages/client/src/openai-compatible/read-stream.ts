import {
  type AgentResponseUpdate,
  type CancelledError,
  getErrorMessage,
  TimeoutError,
  type TimeoutPhase,
} from '@raf/core';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { Deadline } from '../http/deadline.js';
import { ChunkMapper } from './chunk-mapper.js';
import type { OpenedResponse } from './openai-compatible-client.js';
import type { WireChunk } from './wire-types.js';

export interface ReadStreamOptions {
  label: string;
  idleMs: number;
  describeTimeout(phase: TimeoutPhase, ms: number): string;
  redact(text: string): string;
  /** The error to throw when the caller aborted, or undefined when it did not. */
  cancelled(reason: unknown): CancelledError | undefined;
  /** Runs once the stream is over, however it ended. */
  cleanup(): void;
  /** How long to wait for the HTTP end after `[DONE]` before dropping the connection (default 1 s). */
  endGraceMs?: number;
}

type Failure = { code: string; message: string };

function preview(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Collects SSE `data:` payloads into the mapper; records the first protocol problem. A complete
 * one-line `data: …` event (what every Chat Completions server sends) is read here directly;
 * anything else (comments, other fields, multi-line data, CR line ends) goes to
 * eventsource-parser, one complete event at a time, or for the rest of the stream after a CR.
 */
class SseReader {
  sawDone = false;
  malformed: string | undefined;
  private pending = '';
  private parser: EventSourceParser | undefined;
  /** After a CR, every byte goes to the spec parser. */
  private fallback = false;
  private out: AgentResponseUpdate[] = [];

  constructor(private readonly mapper: ChunkMapper) {}

  feed(text: string, out: AgentResponseUpdate[]): void {
    this.out = out;
    if (this.fallback) {
      this.specParser().feed(text);
      return;
    }
    const buffer = this.pending === '' ? text : this.pending + text;
    if (text.includes('\r')) {
      this.fallback = true;
      this.pending = '';
      this.specParser().feed(buffer);
      return;
    }
    let start = 0;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      if (buffer.startsWith('data: ', start) && buffer.indexOf('\n', start) === end) {
        this.onData(buffer.slice(start + 6, end));
      } else {
        this.specParser().feed(buffer.slice(start, end + 2));
      }
      start = end + 2;
      end = buffer.indexOf('\n\n', start);
    }
    this.pending = start === 0 ? buffer : buffer.slice(start);
  }

  private specParser(): EventSourceParser {
    this.parser ??= createParser({ onEvent: (event) => this.onData(event.data) });
    return this.parser;
  }

  private onData(data: string): void {
    if (this.sawDone || this.malformed !== undefined) return;
    if (data === '[DONE]') {
      this.sawDone = true;
      return;
    }
    let chunk: WireChunk;
    try {
      chunk = JSON.parse(data) as WireChunk;
    } catch {
      this.malformed = `malformed SSE data: ${preview(data)}`;
      return;
    }
    if (chunk === null || typeof chunk !== 'object') this.malformed = `unexpected SSE data: ${preview(data)}`;
    else this.mapper.consume(chunk, this.out);
  }
}

function failureOf(
  error: unknown,
  opened: OpenedResponse,
  bytes: number,
  options: ReadStreamOptions,
): Failure {
  const reason: unknown = opened.attempt.reason;
  if (TimeoutError.isInstance(reason))
    return { code: 'RAF_TIMEOUT', message: `${reason.message} after ${bytes} bytes` };
  return {
    code: 'RAF_STREAM',
    message: options.redact(
      `${options.label}: the stream broke after ${bytes} bytes: ${getErrorMessage(error)}`,
    ),
  };
}

/** Reads what is left of a body (after [DONE]: the HTTP end), so the connection is reused. */
async function readToEnd(iterator: AsyncIterator<Buffer>): Promise<boolean> {
  try {
    while (!(await iterator.next()).done);
    return true;
  } catch {
    return false;
  }
}

/**
 * Opens the request (retries happen inside `open`) and reads the answer to the end, yielding the
 * updates of each network read as one batch. A failure after the answer began is an `error`
 * update followed by `finish { reason: 'other' }`: the caller keeps every update it already
 * received.
 */
export async function* readStream(
  open: () => Promise<OpenedResponse>,
  options: ReadStreamOptions,
): AsyncGenerator<AgentResponseUpdate[], void, undefined> {
  let opened: OpenedResponse | undefined;
  let complete = false;
  const idle: { deadline?: Deadline } = {};
  try {
    opened = await open();
    const mapper = new ChunkMapper();
    let out: AgentResponseUpdate[] = [];
    const isJson = opened.contentType.includes('application/json');
    const sse = new SseReader(mapper);
    const decoder = new TextDecoder();
    idle.deadline = new Deadline(opened.attempt, options.describeTimeout);
    idle.deadline.arm('idle', options.idleMs);
    let failure: Failure | undefined;
    let json = '';
    let bytes = 0;
    try {
      let chunk = opened.first;
      while (!chunk.done) {
        bytes += chunk.value.length;
        const text = decoder.decode(chunk.value, { stream: true });
        if (isJson) json += text;
        else sse.feed(text, out);
        // After [DONE] only the end of the HTTP body can follow: these updates go out with the
        // finish, one step for the consumer instead of two, and the body is read to its end after.
        if (sse.sawDone) break;
        if (out.length > 0) {
          yield out;
          out = [];
        }
        if (sse.malformed !== undefined || mapper.streamError !== undefined) break;
        idle.deadline.refresh();
        chunk = await opened.iterator.next();
      }
      complete = chunk.done === true;
    } catch (error) {
      const cancelled = options.cancelled(opened.attempt.reason);
      if (cancelled) throw cancelled;
      failure = failureOf(error, opened, bytes, options);
    }
    idle.deadline.clear();
    if (!failure && isJson) {
      try {
        mapper.consume(JSON.parse(json) as WireChunk, out);
        sse.sawDone = true;
      } catch {
        sse.malformed = `malformed JSON answer: ${preview(json)}`;
      }
    }
    if (!failure && sse.malformed !== undefined)
      failure = { code: 'RAF_STREAM', message: `${options.label}: ${sse.malformed}` };
    if (!failure && mapper.streamError !== undefined) {
      failure = {
        code: 'RAF_CHAT_CLIENT',
        message: options.redact(`${options.label}: provider error: ${mapper.streamError}`),
      };
    }
    if (!failure) {
      const problem = mapper.finish(sse.sawDone, out);
      if (problem !== undefined) failure = { code: 'RAF_STREAM', message: `${options.label}: ${problem}` };
    }
    if (failure) out.push({ type: 'error', ...failure }, { type: 'finish', reason: 'other' });
    if (out.length > 0) yield out;
    if (!complete && !failure && sse.sawDone) {
      // The answer is whole: a server that keeps the body open after [DONE] costs at most the
      // grace period (then the request is aborted, which frees the socket), not the idle timeout.
      const attempt = opened.attempt;
      const grace = setTimeout(
        () => attempt.abort(new Error('no HTTP end after [DONE]')),
        options.endGraceMs ?? 1000,
      );
      complete = await readToEnd(opened.iterator);
      clearTimeout(grace);
    }
  } finally {
    idle.deadline?.clear();
    options.cleanup();
    opened?.detach();
    // Frees the socket when the body was not read to the end (consumer stopped, protocol error).
    // Skipped otherwise: abort() builds a DOMException, which is costly on every call.
    if (!complete) opened?.attempt.abort();
  }
}
