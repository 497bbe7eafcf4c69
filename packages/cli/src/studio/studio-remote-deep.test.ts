import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { ServeClient } from './serve-client.js';
import { RemoteStudio } from './studio-remote.js';

// `raf studio --server URL` relays a hostile server's events to the page: a 200k-deep event is
// refused with a code that says so (it was `studio_error` "Maximum call stack size exceeded").
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it('relays a 200k-deep event of the server as server_answer_invalid', async () => {
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  const serve = await listen(
    createServer((req, res) => {
      if (req.url?.endsWith('/events')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`id: 1\ndata: {"type":"tool-call","callId":"c","name":"n","arguments":${deep}}\n\n`);
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ runId: 'r1', sessionId: 's1' }));
    }),
  );
  const remote = new RemoteStudio(new ServeClient(serve, 't'));
  const studio = await listen(
    createServer((req, res) => {
      void remote.route(
        'POST /agents/:/runs',
        ['agents', 'a', 'runs'],
        req,
        res,
        AbortSignal.timeout(30_000),
      );
    }),
  );
  const response = await fetch(`${studio}/api/agents/a/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'hi' }),
  });
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)) as Record<string, unknown>);
  expect(events.at(-1)).toMatchObject({ type: 'error', code: 'server_answer_invalid' });
  expect(String(events.at(-1)?.message)).toMatch(/nested deeper than 256 levels/);
});
