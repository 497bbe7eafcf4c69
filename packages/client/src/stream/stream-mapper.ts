import type { AgentResponseUpdate } from '@raf/core';

/**
 * Turns one protocol's parsed SSE payloads (or its one JSON answer) into updates. `readStream`
 * owns the transport, the timeouts and the fault semantics; a mapper owns the wire format.
 */
export interface StreamMapper<Chunk = unknown> {
  /** Maps one payload; returns true when it ended the answer (Anthropic `message_stop`). */
  consume(chunk: Chunk, out: AgentResponseUpdate[]): boolean | undefined;
  /** A provider error carried inside the stream, if one arrived. */
  readonly streamError: string | undefined;
  /**
   * Ends the turn (tool-call ends, usage, finish). Returns an error message instead when the
   * answer was cut short, so truncation is never silent and a half-received call never escapes.
   */
  finish(sawDone: boolean, out: AgentResponseUpdate[]): string | undefined;
}
