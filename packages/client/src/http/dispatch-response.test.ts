import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortHandle } from './abort-handle.js';
import { type DispatchedResponse, dispatchRequest } from './dispatch-response.js';

let server: Server | undefined;
let agent: Agent | undefined;

afterEach(async () => {
  await agent?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  agent = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  agent = new Agent();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function send(origin: string, attempt = new AbortHandle()): Promise<DispatchedResponse> {
  return dispatchRequest(
    agent!,
    { origin, path: '/x', headers: { 'content-type': 'text/plain' }, body: 'hi' },
    attempt,
  );
}

async function readAll(response: DispatchedResponse): Promise<string> {
  let text = '';
  for await (const chunk of response.body) text += chunk.toString();
  return text;
}

describe('dispatchRequest', () => {
  it('hands many small writes of one read over as one chunk, and the status and headers first', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(201, { 'x-test': 'yes' });
      for (let i = 0; i < 20; i++) res.write(`event ${i}\n`);
      res.end('end\n');
    });
    const response = await send(origin);
    expect(response.statusCode).toBe(201);
    expect(response.headers['x-test']).toBe('yes');
    const chunks: string[] = [];
    for await (const chunk of response.body) chunks.push(chunk.toString());
    expect(chunks.join('')).toBe(`${Array.from({ length: 20 }, (_, i) => `event ${i}\n`).join('')}end\n`);
    expect(chunks.length).toBeLessThan(21);
  });

  it('pauses the socket for a large body nobody reads yet, and delivers all of it', async () => {
    const piece = 'x'.repeat(64 * 1024);
    const origin = await serve((_req, res) => {
      for (let i = 0; i < 64; i++) res.write(piece);
      res.end();
    });
    const response = await send(origin);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await readAll(response)).length).toBe(64 * piece.length);
  });

  it('rejects with the abort reason when aborted before the headers', async () => {
    const origin = await serve(() => {
      // never answers
    });
    const attempt = new AbortHandle();
    const pending = send(origin, attempt);
    setTimeout(() => attempt.abort(new Error('stop now')), 20);
    await expect(pending).rejects.toThrow('stop now');
  });

  it('breaks the body with the abort reason after the headers, keeping what came before', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200);
      res.write('first');
    });
    const attempt = new AbortHandle();
    const response = await send(origin, attempt);
    const first = await response.body.next();
    expect(first.value?.toString()).toBe('first');
    attempt.abort(new Error('cut'));
    await expect(response.body.next()).rejects.toThrow('cut');
  });

  it('reports a connection that breaks mid-body as an error after the data it carried', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200);
      res.write('partial', () => res.socket?.destroy());
    });
    const response = await send(origin);
    let text = '';
    await expect(async () => {
      for await (const chunk of response.body) text += chunk.toString();
    }).rejects.toThrow();
    expect(text).toBe('partial');
  });

  it('aborts the request when the reader stops early', async () => {
    let closed = false;
    const origin = await serve((req, res) => {
      res.writeHead(200);
      res.write('a');
      req.socket.on('close', () => {
        closed = true;
      });
    });
    const response = await send(origin);
    await response.body.next();
    await response.body.return?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
  });
});
