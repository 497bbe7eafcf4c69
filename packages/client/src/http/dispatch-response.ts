import type { Dispatcher } from 'undici';
import type { AbortHandle } from './abort-handle.js';
import { holdParserTierUp, releaseParserTierUp } from './parser-tier-up.js';

type Headers = Record<string, string | string[] | undefined>;

/** A response whose body is read chunk by chunk, as undici delivers it. */
export interface DispatchedResponse {
  statusCode: number;
  headers: Headers;
  body: AsyncIterableIterator<Buffer> & { readonly finished: boolean };
}

export interface DispatchRequest {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Chunks held before undici is asked to pause the socket (backpressure). */
const HIGH_WATER_BYTES = 256 * 1024;
const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

interface Waiter {
  resolve(result: IteratorResult<Buffer>): void;
  reject(error: unknown): void;
}

/**
 * undici's `dispatch` callbacks turned into a response with a pull-based body. The tool loop's
 * latency sits between one answer's end and the next request; reading the callbacks directly
 * skips the Readable stream layer of `request()` (its buffering, `nextTick` end and async
 * iterator), which costs tens of microseconds per call.
 */
class DispatchedBody implements AsyncIterableIterator<Buffer>, Dispatcher.DispatchHandler {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private waiter: Waiter | undefined;
  private scheduled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly onAbort = () => this.controller?.abort(this.attempt.reason as Error);

  constructor(
    private readonly attempt: AbortHandle,
    private readonly started: (response: DispatchedResponse) => void,
    private readonly failed: (error: unknown) => void,
  ) {
    attempt.on('abort', this.onAbort);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The body ended whole and every chunk was taken: `next()` would be done at once. */
  get finished(): boolean {
    return this.ended && this.chunks.length === 0 && this.failure === undefined;
  }

  next(): Promise<IteratorResult<Buffer>> {
    if (this.chunks.length > 0) return Promise.resolve({ value: this.take(), done: false });
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** The reader stopped early: the request is aborted, which frees its socket. */
  return(): Promise<IteratorResult<Buffer>> {
    if (!this.ended && !this.failure)
      this.controller?.abort(new Error('the response body was not read to the end'));
    this.release();
    return Promise.resolve(DONE);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    releaseParserTierUp();
    this.controller = controller;
    if (this.attempt.aborted) controller.abort(this.attempt.reason as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Headers): void {
    if (statusCode < 200) return; // 1xx: the real answer follows
    this.started({ statusCode, headers, body: this });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered >= HIGH_WATER_BYTES) controller.pause();
    this.wake();
  }

  onResponseEnd(): void {
    this.ended = true;
    this.release();
    this.wake();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    releaseParserTierUp();
    this.failure = { error };
    this.release();
    // Before the headers, the request itself failed; after them, the body breaks.
    this.failed(error);
    this.wake();
  }

  /** Everything received so far, as one chunk (one read for the consumer, however it was sent). */
  private take(): Buffer {
    const chunk = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    this.chunks.length = 0;
    this.buffered = 0;
    if (this.controller?.paused) this.controller.resume();
    return chunk;
  }

  /**
   * Answers a waiting reader after the current parse: a server's many small writes (one per SSE
   * event) reach it as one chunk, and the end with them when it came in the same read.
   */
  private wake(): void {
    if (this.waiter === undefined || this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flush);
  }

  private readonly flush = () => {
    this.scheduled = false;
    const waiter = this.waiter;
    if (waiter === undefined) return;
    this.waiter = undefined;
    if (this.chunks.length > 0) waiter.resolve({ value: this.take(), done: false });
    else if (this.failure) waiter.reject(this.failure.error);
    else if (this.ended) waiter.resolve(DONE);
    else this.waiter = waiter;
  };

  private release(): void {
    this.attempt.removeListener('abort', this.onAbort);
  }
}

/**
 * Sends one request on `dispatcher` and resolves once the status and headers arrive. An abort
 * of `attempt` cancels it (before or after the headers); errors reject like `request()` does.
 */
export function dispatchRequest(
  dispatcher: Dispatcher,
  request: DispatchRequest,
  attempt: AbortHandle,
): Promise<DispatchedResponse> {
  return new Promise((resolve, reject) => {
    const body = new DispatchedBody(attempt, resolve, reject);
    holdParserTierUp(request.origin);
    try {
      dispatcher.dispatch(
        {
          origin: request.origin,
          path: request.path,
          method: 'POST',
          headers: request.headers,
          body: request.body,
        },
        body,
      );
    } catch (error) {
      releaseParserTierUp();
      throw error;
    }
  });
}
