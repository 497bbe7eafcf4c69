import { type AgentResponseUpdate, type CancelledError, getErrorMessage, TimeoutError } from '@raf/core';
import type { AbortHandle } from '../http/abort-handle.js';
import type { CallTimer } from '../http/call-timer.js';
import { preview, SseReader } from './sse-reader.js';
import type { StreamMapper } from './stream-mapper.js';
import { Utf8Stream } from './utf8-stream.js';

/** A response body, read chunk by chunk. */
export interface BodyIterator extends AsyncIterator<Buffer> {
  /** True once the body ended and every chunk was read (known without waiting), when it can tell. */
  readonly finished?: boolean;
}

/** A response whose first body chunk has arrived (or that ended empty). */
export interface OpenedResponse {
  contentType: string;
  iterator: BodyIterator;
  first: IteratorResult<Buffer>;
  attempt: AbortHandle;
  /** Stops forwarding the call's abort (user signal, total timeout) to this attempt. */
  detach(): void;
}

export interface ReadStreamOptions {
  label: string;
  /** A fresh mapper for this answer's wire format. */
  mapper: StreamMapper;
  /** The call's timer: the idle phase runs on it while the body is read. */
  timer: CallTimer;
  idleMs: number;
  redact(text: string): string;
  /** The error to throw when the caller aborted, or undefined when it did not. */
  cancelled(reason: unknown): CancelledError | undefined;
  /** Runs once the stream is over, however it ended. */
  cleanup(): void;
  /** How long to wait for the HTTP end after `[DONE]` before dropping the connection (default 1 s). */
  endGraceMs?: number;
}

type Failure = { code: string; message: string };

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
  const timer = options.timer;
  try {
    opened = await open();
    const mapper = options.mapper;
    let out: AgentResponseUpdate[] = [];
    const isJson = opened.contentType.includes('application/json');
    const sse = new SseReader(mapper);
    const decoder = new Utf8Stream();
    timer.startPhase(opened.attempt, 'idle', options.idleMs);
    let failure: Failure | undefined;
    let json = '';
    let bytes = 0;
    try {
      let chunk = opened.first;
      while (!chunk.done) {
        bytes += chunk.value.length;
        const text = decoder.decode(chunk.value);
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
        timer.restartPhase();
        chunk = await opened.iterator.next();
      }
      complete = chunk.done === true;
    } catch (error) {
      const cancelled = options.cancelled(opened.attempt.reason);
      if (cancelled) throw cancelled;
      failure = failureOf(error, opened, bytes, options);
    }
    timer.endPhase();
    if (!failure && isJson) {
      try {
        mapper.consume(JSON.parse(json) as unknown, out);
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
    // Usually the HTTP end came in the same read as [DONE]: nothing to wait for.
    if (!complete && opened.iterator.finished === true) complete = true;
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
    timer.endPhase();
    options.cleanup();
    opened?.detach();
    // Frees the socket when the body was not read to the end (consumer stopped, protocol error).
    // Skipped otherwise: abort() builds a DOMException, which is costly on every call.
    if (!complete) opened?.attempt.abort();
  }
}
