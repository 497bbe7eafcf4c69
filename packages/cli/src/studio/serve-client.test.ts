import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { StudioHttpError } from './http-json.js';
import { nestsDeeperThan, SERVE_ANSWER_MAX_BYTES, ServeClient } from './serve-client.js';

// A hostile `raf serve` (the studio connects to whatever --server names): its answers must not
// grow the studio's memory without bound, whatever it sends.

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that answers every request with `answer`; resolves to its URL. */
async function hostile(answer: (res: ServerResponse) => void): Promise<string> {
  server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes `bytes` of `x` in 64 KiB chunks, honouring back-pressure; never ends the response. */
function flood(res: ServerResponse, bytes: number): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  const write = () => {
    while (sent < bytes && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', write);
    }
  };
  write();
}

describe('ServeClient against a hostile raf serve', () => {
  it('refuses a JSON answer past the cap instead of buffering it', async () => {
    const url = await hostile((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"agents":[{"name":"');
      flood(res, SERVE_ANSWER_MAX_BYTES * 2);
    });
    const client = new ServeClient(url, 't');
    await expect(client.agents(AbortSignal.timeout(60_000))).rejects.toThrow(/too large/);
  });

  it('refuses an error body past the cap', async () => {
    const url = await hostile((res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.write('{"error":{"code":"x","message":"');
      flood(res, SERVE_ANSWER_MAX_BYTES * 2);
    });
    const client = new ServeClient(url, 't');
    await expect(client.cancel('r', AbortSignal.timeout(60_000))).rejects.toThrow(/too large/);
  });

  it('refuses one server-sent event past the cap (a line that never ends)', async () => {
    const url = await hostile((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\ndata: {"type":"text-delta","delta":"');
      flood(res, SERVE_ANSWER_MAX_BYTES * 2);
    });
    const client = new ServeClient(url, 't');
    const read = async () => {
      for await (const _ of client.events('r', 0, AbortSignal.timeout(60_000))) {
        // nothing: the only event never ends
      }
    };
    await expect(read()).rejects.toThrow(/too large/);
  });

  it('still reads many small events whose sum is past the cap', async () => {
    const line = `data: {"type":"text-delta","delta":"${'y'.repeat(1000)}"}\n\n`;
    const count = Math.ceil((SERVE_ANSWER_MAX_BYTES * 1.5) / line.length);
    const url = await hostile((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const write = () => {
        while (i < count) {
          i++;
          if (!res.write(`id: ${i}\n${line}`)) return void res.once('drain', write);
        }
        res.end();
      };
      write();
    });
    const client = new ServeClient(url, 't');
    let seen = 0;
    for await (const _ of client.events('r', 0, AbortSignal.timeout(60_000))) seen++;
    expect(seen).toBe(count);
  });

  it('refuses a 200k-deep event as server_answer_invalid, not a stack overflow', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const url = await hostile((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`id: 1\ndata: {"type":"tool-call","callId":"c","name":"n","arguments":${deep}}\n\n`);
    });
    const client = new ServeClient(url, 't');
    const read = async () => {
      for await (const _ of client.events('r', 0, AbortSignal.timeout(60_000))) {
        // nothing: the only event is refused
      }
    };
    const error = await read().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StudioHttpError);
    expect((error as StudioHttpError).code).toBe('server_answer_invalid');
    expect((error as StudioHttpError).message).toMatch(/nested deeper than/);
  });

  it('refuses a 200k-deep JSON answer as server_answer_invalid', async () => {
    const url = await hostile((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"agents":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    });
    const client = new ServeClient(url, 't');
    await expect(client.agents(AbortSignal.timeout(60_000))).rejects.toMatchObject({
      code: 'server_answer_invalid',
    });
  });

  it('counts only brackets outside strings', () => {
    expect(nestsDeeperThan(`{"a":"${'['.repeat(1000)}"}`, 2)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\"}', 1)).toBe(false);
    expect(nestsDeeperThan('[[[]]]', 2)).toBe(true);
  });
});
