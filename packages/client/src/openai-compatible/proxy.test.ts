import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { userMessage } from '@raf/core';
import { ProxyAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type MockModelServer, startMockModelServer } from '../testing/mock-server.js';
import { drain } from '../testing/test-helpers.js';
import { OpenAICompatibleChatClient } from './openai-compatible-client.js';

let model: MockModelServer | undefined;
let proxy: Server | undefined;
let dispatcher: ProxyAgent | undefined;

afterEach(async () => {
  await dispatcher?.close();
  await model?.close();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  proxy = undefined;
});

/** A CONNECT proxy on 127.0.0.1 that records the tunnels it opened. */
async function startProxy(tunnels: string[]): Promise<string> {
  proxy = createServer();
  proxy.on('connect', (req, socket, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

describe('a dispatcher passed in', () => {
  it('streams through an undici ProxyAgent (the client dispatches on whatever dispatcher it gets)', async () => {
    model = await startMockModelServer({
      turns: [{ text: 'via proxy' }, ...Array.from({ length: 5 }, () => ({ text: 'again' }))],
    });
    const tunnels: string[] = [];
    dispatcher = new ProxyAgent(await startProxy(tunnels));
    const client = new OpenAICompatibleChatClient({
      model: 'm',
      baseURL: model.baseURL,
      apiKey: 'k',
      dispatcher,
    });
    const first = await drain(client.run([userMessage('hi')]));
    let last = first;
    for (let i = 0; i < 5; i++) last = await drain(client.run([userMessage('hi')]));
    expect(
      first
        .filter((u) => u.type === 'text-delta')
        .map((u) => (u as { delta: string }).delta)
        .join(''),
    ).toBe('via proxy');
    expect(last.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    // Connections are reused: six calls, no more tunnels than undici opens for request() (two).
    expect(tunnels.length).toBeLessThanOrEqual(2);
    expect(new Set(tunnels)).toEqual(new Set([new URL(model.baseURL).host]));
  });
});
