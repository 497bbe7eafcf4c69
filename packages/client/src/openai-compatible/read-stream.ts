import { type AgentResponseUpdate, type CancelledError, TimeoutError, type TimeoutPhase, getErrorMessage } from '@raf/core';
import { createParser } from 'eventsource-parser';
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
}

function preview(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Reads an opened response to the end. A failure after this point is an `error` update followed
 * by `finish { reason: 'other' }`: the caller keeps every update it already received.
 */
export async function* readStream(
  opened: OpenedResponse,
  options: ReadStreamOptions,
): AsyncGenerator<AgentResponseUpdate, void, undefined> {
  const mapper = new ChunkMapper();
  const out: AgentResponseUpdate[] = [];
  const isJson = opened.contentType.includes('application/json');
  let sawDone = false;
  let malformed: string | undefined;
  let json = '';
  const parser = createParser({
    onEvent(event) {
      if (sawDone || malformed !== undefined) return;
      if (event.data === '[DONE]') {
        sawDone = true;
        return;
      }
      let chunk: WireChunk;
      try {
        chunk = JSON.parse(event.data) as WireChunk;
      } catch {
        malformed = `malformed SSE data: ${preview(event.data)}`;
        return;
      }
      if (chunk === null || typeof chunk !== 'object') {
        malformed = `unexpected SSE data: ${preview(event.data)}`;
        return;
      }
      mapper.consume(chunk, out);
    },
  });
  const decoder = new TextDecoder();
  const idle = new Deadline(opened.attempt, options.describeTimeout);
  idle.arm('idle', options.idleMs);
  let failure: { code: string; message: string } | undefined;
  let bytes = 0;
  try {
    let chunk = opened.first;
    while (!chunk.done) {
      bytes += chunk.value.length;
      const text = decoder.decode(chunk.value, { stream: true });
      if (isJson) json += text;
      else parser.feed(text);
      if (out.length > 0) {
        for (let i = 0; i < out.length; i++) yield out[i]!;
        out.length = 0;
      }
      if (malformed !== undefined || mapper.streamError !== undefined) break;
      idle.refresh();
      chunk = await opened.iterator.next();
    }
  } catch (error) {
    const cancelled = options.cancelled(opened.attempt.signal.reason);
    if (cancelled) throw cancelled;
    const reason: unknown = opened.attempt.signal.reason;
    failure = TimeoutError.isInstance(reason)
      ? { code: 'RAF_TIMEOUT', message: `${reason.message} after ${bytes} bytes` }
      : {
          code: 'RAF_STREAM',
          message: options.redact(`${options.label}: the stream broke after ${bytes} bytes: ${getErrorMessage(error)}`),
        };
  } finally {
    idle.clear();
  }
  if (!failure && isJson) {
    try {
      mapper.consume(JSON.parse(json) as WireChunk, out);
      sawDone = true;
    } catch {
      malformed = `malformed JSON answer: ${preview(json)}`;
    }
  }
  if (!failure && malformed !== undefined) failure = { code: 'RAF_STREAM', message: `${options.label}: ${malformed}` };
  if (!failure && mapper.streamError !== undefined) {
    failure = { code: 'RAF_CHAT_CLIENT', message: options.redact(`${options.label}: provider error: ${mapper.streamError}`) };
  }
  if (!failure) {
    const problem = mapper.finish(sawDone, out);
    if (problem !== undefined) failure = { code: 'RAF_STREAM', message: `${options.label}: ${problem}` };
  }
  for (const update of out) yield update;
  if (failure) {
    yield { type: 'error', ...failure };
    yield { type: 'finish', reason: 'other' };
  }
}
