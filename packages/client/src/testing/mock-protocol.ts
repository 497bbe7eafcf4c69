import type { RecordedRequest } from './mock-server.js';
import type { ScriptTurn } from './script-turn.js';

export interface WireOptions {
  turnIndex: number;
  model: string;
  /** Split each call's arguments into this many deltas (default 3). */
  argumentChunks: number;
  /** Raw usage object to send instead of the converted `usage`. */
  rawUsage?: Record<string, unknown>;
}

/** What differs between the wire protocols the mock server speaks; the faults are shared. */
export interface MockProtocol {
  /** The chat route below the base path (`/chat/completions`, `/messages`). */
  route: string;
  /** The body of `GET <base>/models`. */
  modelList(model: string): unknown;
  /** What the real API would refuse with a 400 (a message), or undefined. */
  checkRequest?(request: RecordedRequest): string | undefined;
  /** An error body in the protocol's shape; `type` defaults by status. */
  errorBody(status: number, message: string, type?: string): unknown;
  /** The SSE events of a streamed answer, each with its blank line, without the end marker. */
  streamEvents(turn: ScriptTurn, options: WireOptions): string[];
  /** The event that ends a stream (left out with `omitDone`); per turn where it carries the answer. */
  endEvent: string | ((turn: ScriptTurn, options: WireOptions) => string);
  /** A broken event (`malformedAfterChunks`). */
  malformedEvent: string;
  /** A non-streamed answer. */
  completionBody(turn: ScriptTurn, options: WireOptions): unknown;
}
