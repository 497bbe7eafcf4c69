import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, type Served, serve, startFixture, TOKEN_A } from '../test-support/served-fixture.js';

// The low findings of the last attack on `raf serve`, each fixed and kept fixed here.
let fixture: Fixture;
let served: Served;
let proxied: Served;
const logged: string[] = [];

beforeAll(async () => {
  fixture = await startFixture();
  served = await serve(fixture, 'memory:', { log: (line) => logged.push(line), requestTimeoutMs: 1000 });
  proxied = await serve(fixture, 'memory:', { protocols: { publicUrl: 'https://agents.example.com/' } });
});
afterAll(async () => {
  await served?.close();
  await proxied?.close();
  await fixture?.close();
});

/** Writes `head` (and then `drip` a byte at a time every `everyMs`) on a raw socket; resolves with what came back when it closes. */
function raw(url: string, head: string, drip = '', everyMs = 200): Promise<{ text: string; ms: number }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => {
      text += chunk.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: Date.now() - started });
    });
    socket.on('connect', () => {
      socket.write(head);
      let at = 0;
      if (drip)
        timer = setInterval(() => {
          if (at < drip.length && !socket.destroyed) socket.write(drip[at++]!);
        }, everyMs);
      else socket.end();
    });
    setTimeout(() => reject(new Error('the socket stayed open')), 30_000).unref();
  });
}

describe('raf serve hardening', () => {
  it('refuses a request with two Host headers (only the first would have been checked)', async () => {
    const { port } = new URL(served.url);
    const { text } = await raw(
      served.url,
      `GET /v1/agents HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example\r\nAuthorization: Bearer ${TOKEN_A}\r\nConnection: close\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    expect(text).toContain('duplicate_host');
  });

  it('a dripped body is cut off by the request timeout, not minutes later', async () => {
    const { port } = new URL(served.url);
    const body = JSON.stringify({ input: 'x'.repeat(200) });
    // 200 bytes at one per 100 ms would take 20 s; the limit (1 s here, 60 s by default) ends it.
    const { ms } = await raw(
      served.url,
      `POST /v1/agents/noter/runs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN_A}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
      100,
    );
    expect(ms).toBeLessThan(10_000);
  });

  it('logs a refused origin once, not once per request', async () => {
    logged.length = 0;
    const refused = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${served.url}/v1/agents`, {
          headers: { authorization: `Bearer ${TOKEN_A}`, origin: 'https://evil.example' },
        }),
      ),
    );
    expect(refused.every((r) => r.status === 403)).toBe(true);
    expect(logged.filter((l) => l.includes('https://evil.example'))).toHaveLength(1);
  });

  it('answers deeply nested JSON with a clean error: a JSON-RPC error on A2A, a 400 on the API', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const a2a = await fetch(`${served.url}/a2a/deployer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
      body: `{"jsonrpc":"2.0","id":1,"method":"message/send","params":${deep}}`,
    });
    expect(a2a.status).toBe(200);
    expect(await a2a.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    const api = await fetch(`${served.url}/v1/agents/noter/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
      body: `{"input":${deep}}`,
    });
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('too_deep');
  });

  it("the A2A card names the public URL, else the bound address, never the request's Host", async () => {
    const { port } = new URL(served.url);
    const { text } = await raw(
      served.url,
      `GET /a2a/deployer/.well-known/agent-card.json HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`,
    );
    const card = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { url?: string };
    expect(JSON.stringify(card)).not.toContain('localhost');
    expect(JSON.stringify(card)).toContain(`http://127.0.0.1:${port}/a2a/deployer`);
    const behind = (await (
      await fetch(`${proxied.url}/a2a/deployer/.well-known/agent-card.json`)
    ).json()) as object;
    expect(JSON.stringify(behind)).toContain('https://agents.example.com/a2a/deployer');
    expect(JSON.stringify(behind)).not.toContain('127.0.0.1');
  });
});
