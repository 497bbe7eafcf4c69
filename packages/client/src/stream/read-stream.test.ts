import type { AgentResponseUpdate } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { AbortHandle } from '../http/abort-handle.js';
import { CallTimer } from '../http/call-timer.js';
import { ChunkMapper } from '../openai-compatible/chunk-mapper.js';
import { type OpenedResponse, readStream } from './read-stream.js';

function chunk(content: string, extra = ''): string {
  return `{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}}${extra}}]}`;
}

/**
 * Reads `pieces` (the response body, cut where the network would cut it) through readStream.
 * With `hang`, the body never ends after its last piece, like a server that keeps it open.
 */
async function read(
  pieces: (string | Buffer)[],
  hang = false,
  stopAtFinish = hang,
): Promise<AgentResponseUpdate[]> {
  const buffers = pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece));
  const attempt = new AbortHandle();
  async function* body() {
    for (const buffer of buffers.slice(1)) yield buffer;
    // Like the real transport: an abort of the attempt breaks the body.
    if (hang) await new Promise((_, reject) => attempt.on('abort', () => reject(attempt.reason)));
  }
  const iterator = body();
  const opened: OpenedResponse = {
    contentType: 'text/event-stream',
    iterator,
    first: buffers.length > 0 ? { value: buffers[0]!, done: false } : { value: undefined, done: true },
    attempt,
    detach: () => {},
  };
  const updates: AgentResponseUpdate[] = [];
  for await (const batch of readStream(async () => opened, {
    label: 'test',
    mapper: new ChunkMapper(),
    timer: new CallTimer(() => 'timeout'),
    idleMs: 0,
    redact: (text) => text,
    cancelled: () => undefined,
    cleanup: () => {},
    endGraceMs: 20,
  })) {
    updates.push(...batch);
    if (stopAtFinish && batch.some((update) => update.type === 'finish')) break;
  }
  return updates;
}

const STOP = ',"finish_reason":"stop"';
const EXPECTED: AgentResponseUpdate[] = [
  { type: 'response-metadata', id: 'c1', model: 'm' },
  { type: 'text-delta', delta: 'Hello' },
  { type: 'text-delta', delta: ' world' },
  { type: 'finish', reason: 'stop' },
];

describe('readStream SSE parsing', () => {
  const plain = `data: ${chunk('Hello')}\n\ndata: ${chunk(' world', STOP)}\n\ndata: [DONE]\n\n`;

  it('reads the same updates wherever the network cuts the body', async () => {
    expect(await read([plain])).toEqual(EXPECTED);
    for (let cut = 1; cut < plain.length; cut += 7) {
      expect(await read([plain.slice(0, cut), plain.slice(cut)])).toEqual(EXPECTED);
    }
  });

  it('reads CRLF line ends, even when the first CR arrives mid-stream', async () => {
    const crlf = plain.replaceAll('\n', '\r\n');
    expect(await read([crlf])).toEqual(EXPECTED);
    const mixed = `data: ${chunk('Hello')}\n\ndata: ${chunk(' world', STOP)}\r\n\r\ndata: [DONE]\r\n\r\n`;
    const cut = mixed.indexOf('\r');
    expect(await read([mixed.slice(0, cut - 3), mixed.slice(cut - 3)])).toEqual(EXPECTED);
  });

  it('hands comments, named events, multi-line data and "data:" without a space to the SSE parser', async () => {
    const body =
      ': keep-alive\n\n' +
      `event: message\ndata: ${chunk('Hello')}\n\n` +
      `data:${chunk(' world', STOP)}\n\n` +
      'data: [DO\ndata: NE]\n\n' +
      'data: [DONE]\n\n';
    // "[DO\nNE]" is one event whose data spans two lines: not [DONE], so it is malformed.
    const updates = await read([body]);
    expect(updates.slice(0, 3)).toEqual(EXPECTED.slice(0, 3));
    expect(updates.at(-2)).toMatchObject({ type: 'error', code: 'RAF_STREAM' });
    expect(await read([body.replace('data: [DO\ndata: NE]\n\n', '')])).toEqual(EXPECTED);
  });

  it('joins multi-line data with a newline, as the SSE spec says', async () => {
    const body = `data: {"id":"c1","model":"m",\ndata: "choices":[{"index":0,"delta":{"content":"Hi"}${STOP}}]}\n\ndata: [DONE]\n\n`;
    expect(await read([body])).toEqual([
      { type: 'response-metadata', id: 'c1', model: 'm' },
      { type: 'text-delta', delta: 'Hi' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('reads comments, named events and multi-line data the same wherever the network cuts them', async () => {
    const body =
      ': keep-alive\n\n' +
      `event: message\ndata: ${chunk('Hello')}\n\n` +
      `data: {"id":"c1","model":"m",\ndata: "choices":[{"index":0,"delta":{"content":" world"}${STOP}}]}\n\n` +
      '\n\ndata: [DONE]\n\n';
    expect(await read([body])).toEqual(EXPECTED);
    for (let cut = 1; cut < body.length; cut += 3) {
      expect(await read([body.slice(0, cut), body.slice(cut)])).toEqual(EXPECTED);
    }
  });

  it('drops an event left unfinished at the end of the body (no blank line)', async () => {
    const body = `data: ${chunk('Hello', STOP)}\n\ndata: ${chunk(' lost')}`;
    expect(await read([body])).toEqual([
      { type: 'response-metadata', id: 'c1', model: 'm' },
      { type: 'text-delta', delta: 'Hello' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('joins a UTF-8 character split between two reads, wherever the cut falls', async () => {
    const text = 'café ✓ 🙂 終';
    const body = Buffer.from(`data: ${chunk(text, STOP)}\n\ndata: [DONE]\n\n`);
    const expected: AgentResponseUpdate[] = [
      { type: 'response-metadata', id: 'c1', model: 'm' },
      { type: 'text-delta', delta: text },
      { type: 'finish', reason: 'stop' },
    ];
    for (let cut = 1; cut < body.length; cut++) {
      expect(await read([body.subarray(0, cut), body.subarray(cut)])).toEqual(expected);
    }
  });

  it('drops a byte order mark at the start of the body, even one split between reads', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(plain)]);
    expect(await read([body])).toEqual(EXPECTED);
    expect(await read([body.subarray(0, 1), body.subarray(1, 2), body.subarray(2)])).toEqual(EXPECTED);
  });

  it('reads invalid UTF-8 as U+FFFD without failing the answer', async () => {
    const [head, tail] = `data: ${chunk('a#b', STOP)}\n\ndata: [DONE]\n\n`.split('#') as [string, string];
    const body = Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xc3]), Buffer.from(tail)]);
    expect((await read([body]))[1]).toEqual({ type: 'text-delta', delta: 'a\uFFFD\uFFFDb' });
  });

  it('delivers the finish as soon as [DONE] arrives, with the updates of the same read', async () => {
    // The body stays open after [DONE]: the answer must not wait for the HTTP end.
    expect(await read([plain], true)).toEqual(EXPECTED);
  });

  it('ends the stream after a short grace when the body stays open after [DONE], with no error', async () => {
    const started = Date.now();
    expect(await read([plain], true, false)).toEqual(EXPECTED);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
