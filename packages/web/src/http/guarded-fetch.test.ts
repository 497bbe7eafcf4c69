import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, reply, startLocalServer } from '../test-support/local-server.js';
import { GuardedHttpClient } from './guarded-http.js';

// The `fetch` face of the guarded client, for SDKs that take a `fetchImpl` (A2A).
let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer(async (req, res) => {
    if (req.url === '/away') {
      res.writeHead(302, { location: 'http://127.0.0.2/' });
      return res.end();
    }
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 3; i++) {
        res.write(`data: ${i}\n\n`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return res.end();
    }
    if (req.url === '/large') return reply(res, 200, 'text/plain', 'x'.repeat(5000));
    return reply(res, 200, 'application/json', JSON.stringify({ method: req.method, body: req.body }));
  });
});
afterAll(async () => {
  await server.close();
});

describe('GuardedHttpClient.fetch', () => {
  it('refuses a loopback address unless allowPrivate lists it', async () => {
    const guarded = new GuardedHttpClient();
    try {
      await expect(guarded.fetch(`${server.origin}/`)).rejects.toThrow(/refused .*SSRF guard/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });

  it('sends the method and body, streams the answer, and refuses redirects', async () => {
    const guarded = new GuardedHttpClient({ allowPrivate: ['127.0.0.1'], maxBytes: 1000 });
    try {
      const posted = await guarded.fetch(`${server.origin}/echo`, { method: 'POST', body: '{"a":1}' });
      expect(await posted.json()).toEqual({ method: 'POST', body: '{"a":1}' });
      const streamed = await guarded.fetch(`${server.origin}/stream`);
      expect(await streamed.text()).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
      await expect(guarded.fetch(`${server.origin}/away`)).rejects.toThrow();
      const large = await guarded.fetch(`${server.origin}/large`);
      await expect(large.text()).rejects.toThrow(/larger than 1000 bytes/);
    } finally {
      await guarded.close();
    }
  });
});
