import type { AgentResponseUpdate } from '@raf/core';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { StreamMapper } from './stream-mapper.js';

const NEWLINE = 10;

export function preview(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Collects SSE `data:` payloads into the mapper; records the first protocol problem. A complete
 * one-line `data: …` event (what every Chat Completions server sends) is read here directly, and
 * so is a two-line `event: …` + `data: …` event (what Anthropic sends: the name is repeated in
 * the payload's `type`); anything else (comments, other fields, multi-line data, CR line ends)
 * goes to eventsource-parser, one complete event at a time, or for the rest of the stream after
 * a CR.
 */
export class SseReader {
  sawDone = false;
  malformed: string | undefined;
  private pending = '';
  private parser: EventSourceParser | undefined;
  /** After a CR, every byte goes to the spec parser. */
  private fallback = false;
  private out: AgentResponseUpdate[] = [];

  constructor(private readonly mapper: StreamMapper) {}

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
    // One scan per event: its first line end, followed by a second one for a one-line event.
    let start = 0;
    let end = buffer.indexOf('\n');
    while (end !== -1) {
      if (buffer.charCodeAt(end + 1) === NEWLINE) {
        if (buffer.startsWith('data: ', start)) this.onData(buffer.slice(start + 6, end));
        else this.namedOrSpec(buffer, start, end);
      } else {
        end = buffer.indexOf('\n\n', end + 1);
        if (end === -1) break;
        this.namedOrSpec(buffer, start, end);
      }
      start = end + 2;
      end = buffer.indexOf('\n', start);
    }
    this.pending = start === 0 ? buffer : buffer.slice(start);
  }

  /** `event: name\ndata: payload` read directly; any other shape goes to the spec parser. */
  private namedOrSpec(buffer: string, start: number, end: number): void {
    if (buffer.startsWith('event: ', start)) {
      const second = buffer.indexOf('\n', start) + 1;
      if (buffer.startsWith('data: ', second) && buffer.indexOf('\n', second) === end) {
        this.onData(buffer.slice(second + 6, end));
        return;
      }
    }
    this.specParser().feed(buffer.slice(start, end + 2));
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
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      this.malformed = `malformed SSE data: ${preview(data)}`;
      return;
    }
    if (chunk === null || typeof chunk !== 'object') this.malformed = `unexpected SSE data: ${preview(data)}`;
    else if (this.mapper.consume(chunk, this.out) === true) this.sawDone = true;
  }
}
