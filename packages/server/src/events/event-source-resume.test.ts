import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Fixture,
  readEvents,
  type Served,
  serve,
  startFixture,
  TOKEN_A,
} from '../test-support/served-fixture.js';

let fixture: Fixture;
let served: Served;

beforeAll(async () => {
  fixture = await startFixture({ rounds: 4, chunkDelayMs: 10 });
  served = await serve(fixture);
});
afterAll(async () => {
  await served.close();
  await fixture.close();
});

/** A body that breaks (like a dropped connection) after `events` complete events went through. */
function cutAfter(body: ReadableStream<Uint8Array>, events: number): ReadableStream<Uint8Array> {
  let seen = 0;
  const decoder = new TextDecoder();
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const text = decoder.decode(chunk, { stream: true });
        const blocks = text.split('\n\n');
        let kept = '';
        for (const [i, block] of blocks.entries()) {
          if (i === blocks.length - 1) {
            kept += block;
            break;
          }
          kept += `${block}\n\n`;
          if (block.includes('data:') && ++seen >= events) {
            controller.enqueue(new TextEncoder().encode(kept));
            controller.error(new Error('connection dropped'));
            return;
          }
        }
        controller.enqueue(new TextEncoder().encode(kept));
      },
    }),
  );
}

describe('a real EventSource client', () => {
  it('reconnects after a dropped connection with Last-Event-ID and gets exactly the rest', async () => {
    const started = await fetch(`${served.url}/v1/agents/noter/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
      body: '{"input":"go"}',
    });
    const { runId } = (await started.json()) as { runId: string };
    const sentIds: (string | null)[] = [];
    let connections = 0;
    const received: { id: string; data: string }[] = [];
    await new Promise<void>((resolve, reject) => {
      const source = new EventSource(`${served.url}/v1/runs/${runId}/events`, {
        fetch: async (url, init) => {
          connections++;
          const headers = new Headers(init.headers);
          sentIds.push(headers.get('last-event-id'));
          headers.set('authorization', `Bearer ${TOKEN_A}`);
          const res = await fetch(url, { ...init, headers } as RequestInit);
          // The first connection drops after 3 events; the client must come back on its own.
          return connections === 1 ? new Response(cutAfter(res.body!, 3), res) : res;
        },
      });
      source.onmessage = (message) => {
        received.push({ id: message.lastEventId, data: message.data });
        if (JSON.parse(message.data).type === 'finish') {
          source.close();
          resolve();
        }
      };
      setTimeout(() => reject(new Error(`no finish; got ${received.length} events`)), 20_000);
    });
    expect(connections).toBe(2);
    expect(sentIds).toEqual([null, '3']);
    const all = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    expect(received.map((e) => Number(e.id))).toEqual(all.map((e) => e.id));
    expect(received.map((e) => JSON.parse(e.data))).toEqual(all.map((e) => e.data));
  });
});
