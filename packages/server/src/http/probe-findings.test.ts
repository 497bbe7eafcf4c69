import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantTokens } from '../auth/tenant-tokens.js';
import { storeSessionId } from '../runs/tenant-sessions.js';
import {
  type Fixture,
  readEvents,
  type Served,
  serve,
  startFixture,
  TOKEN_A,
} from '../test-support/served-fixture.js';

// The findings of an outside attack on `raf serve` (curl and raw sockets against the real
// server), each fixed and kept fixed here.
// biome-ignore lint/suspicious/noExplicitAny: JSON answers read loosely in assertions
type Loose = any;

const HAS_IPV6 = await ipv6Loopback();

let fixture: Fixture;
let served: Served;
let failing: Served;
let dir: string;
const logged: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-serve-probe-'));
  fixture = await startFixture({ rounds: 1 });
  served = await serve(fixture);
  // A store whose reads fail with a message naming a file: what /readyz must not repeat.
  failing = await serve(fixture, 'memory:', { log: (line) => logged.push(line) });
  const sessions = failing.store.sessions;
  sessions.load = async () => {
    throw new Error('SQLITE_IOERR: disk I/O error at /var/lib/raf/secret-state.db');
  };
});
afterAll(async () => {
  await served?.close();
  await failing?.close();
  await fixture?.close();
  await rm(dir, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit = {}, authorization = `Bearer ${TOKEN_A}`) =>
  fetch(`${served.url}${path}`, {
    ...init,
    headers: {
      authorization,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
  });

async function pausedRun(sessionId: string): Promise<{ runId: string; sessionId: string }> {
  const started = (await (
    await call('/v1/agents/deployer/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'ship it', sessionId }),
    })
  ).json()) as Loose;
  await readEvents(`${served.url}/v1/runs/${started.runId}/events`, TOKEN_A);
  expect(((await (await call(`/v1/runs/${started.runId}`)).json()) as Loose).status).toBe('paused');
  return started;
}

describe('raf serve against an outside attacker', () => {
  it('a malformed percent-escape in the path is a 404 on every route, never a 500', async () => {
    const probes: [string, string, string?][] = [
      ['POST', '/a2a/%zz', '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}'],
      ['POST', '/v1/agents/%zz/chat', '{}'],
      ['POST', '/v1/agents/%zz/ag-ui', '{}'],
      ['GET', '/v1/agents/deployer/chat/%E0%A4/stream'],
      ['GET', '/v1/runs/%zz/events'],
    ];
    for (const [method, path, body] of probes) {
      const res = await call(path, { method, ...(body !== undefined && { body }) });
      const answer = (await res.json()) as Loose;
      expect({ path, status: res.status, code: answer.error.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
    }
    // `//v1/agents` is a path, not the host `v1` with the path `/agents`.
    const doubled = await call('//v1/agents');
    expect(doubled.status).toBe(404);
    expect(((await doubled.json()) as Loose).error.message).toContain('//v1/agents');
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
  });

  it('an absolute-form target naming another host is refused like its Host header', async () => {
    const { port } = new URL(served.url);
    const ask = (target: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString();
        });
        socket.on('close', () => resolve(text));
        socket.write(
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN_A}\r\nConnection: close\r\n\r\n`,
        );
      });
    expect(await ask('http://evil.example/v1/agents')).toMatch(/^HTTP\/1\.1 403[\s\S]*wrong_host/);
    expect(await ask(`http://127.0.0.1:${port}/v1/agents`)).toMatch(/^HTTP\/1\.1 200/);
  });

  it('takes the Bearer scheme in any case (RFC 9110), the token itself exactly', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER'])
      expect((await call('/v1/agents', {}, `${scheme} ${TOKEN_A}`)).status).toBe(200);
    expect((await call('/v1/agents', {}, `Bearer ${TOKEN_A.toUpperCase()}`)).status).toBe(401);
    expect((await call('/v1/agents', {}, `Basic ${TOKEN_A}`)).status).toBe(401);
    expect((await call('/v1/agents', {}, `Bearer${TOKEN_A}`)).status).toBe(401);
  });

  it("a paused run's session is not deleted (409), and the run is cancelled like any other", async () => {
    const { runId, sessionId } = await pausedRun('probe-delete');
    const refused = await call(`/v1/sessions/${sessionId}`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as Loose).error.code).toBe('awaiting_approval');
    const cancelled = (await (await call(`/v1/runs/${runId}/cancel`, { method: 'POST' })).json()) as Loose;
    expect(cancelled.status).toBe('cancelled');
    expect((await call(`/v1/sessions/${sessionId}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('a paused run whose session went elsewhere is ended by a cancel, not stuck paused', async () => {
    const { runId, sessionId } = await pausedRun('probe-orphan');
    // Another process on the same store (`raf` itself) removed the session and its batch.
    await served.store.sessions.delete(storeSessionId('a', sessionId));
    const answered = await call(`/v1/runs/${runId}/cancel`, { method: 'POST' });
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as Loose).status).toBe('cancelled');
    const events = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    expect(events.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'cancelled' });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(fixture.calls.filter((c) => c.startsWith('deploy'))).toEqual([]);
  });

  it('/readyz answers 503 without the store’s message (no token needed: it may name a path)', async () => {
    const res = await fetch(`${failing.url}/readyz`);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).not.toContain('/var/lib');
    expect(text).not.toContain('SQLITE');
    expect(logged.join('\n')).toContain('secret-state.db');
  });

  it('/readyz looks one id up and never lists the store (a probe must not grow with its sessions)', async () => {
    const sessions = served.store.sessions;
    const list = sessions.list;
    let listed = 0;
    sessions.list = async (...args) => {
      listed++;
      return list.apply(sessions, args);
    };
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(`${served.url}/readyz`)).status).toBe(200);
      expect(listed).toBe(0);
    } finally {
      sessions.list = list;
    }
  });

  it('a tokens file: a FIFO is refused at once, a token with a space or non-ASCII is refused, a BOM is read past', async () => {
    const fifo = join(dir, 'tokens.fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(TenantTokens.fromFile(fifo)).rejects.toThrow(/not a regular file/);
    const file = join(dir, 'tokens.json');
    for (const token of [' '.repeat(20), 'token-with-é-0123456789', 'token with space 0123'])
      await writeFile(file, JSON.stringify({ [token]: 'a' })).then(async () => {
        await expect(TenantTokens.fromFile(file)).rejects.toThrow(/token number 1 has a space/);
      });
    await writeFile(file, `\uFEFF${JSON.stringify({ 'token-of-tenant-c-0123456789': 'c' })}`);
    await chmod(file, 0o600);
    expect((await TenantTokens.fromFile(file)).tenantOf('token-of-tenant-c-0123456789')).toBe('c');
  });
});

describe('A2A approvals against an outside attacker', () => {
  const rpc = (id: number, method: string, params: unknown) =>
    call('/a2a/deployer', {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    }).then(async (res) => (await res.json()) as Loose);
  const answer = (id: number, taskId: string, contextId: string, approvals: unknown) =>
    rpc(id, 'message/send', {
      message: {
        messageId: `m${id}`,
        role: 'user',
        taskId,
        contextId,
        parts: [{ kind: 'data', data: { approvals } }],
      },
    });

  it('a wrong call id leaves the task waiting; answers sent at once resume it exactly once', async () => {
    const before = fixture.calls.length;
    const paused = await rpc(1, 'message/send', {
      message: { messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'ship it' }] },
    });
    const { id: taskId, contextId } = paused.result;
    expect(paused.result.status.state).toBe('input-required');
    const wrong = await answer(2, taskId, contextId, [{ callId: 'no-such-call', approved: true }]);
    expect(wrong.result.status.state).toBe('input-required');
    expect(JSON.stringify(wrong.result.status.message)).toContain('no-such-call');
    const right = [{ callId: 'c0u1', approved: true }];
    const answers = await Promise.all([3, 4, 5, 6].map((id) => answer(id, taskId, contextId, right)));
    // One resumes the run; the others wait for its turn and answer with the same end.
    expect(answers.filter((a) => a.result?.status?.state === 'completed').length).toBeGreaterThanOrEqual(1);
    expect(answers.some((a) => a.result?.status?.state === 'failed')).toBe(false);
    const task = await rpc(7, 'tasks/get', { id: taskId });
    expect(task.result.status.state).toBe('completed');
    expect(fixture.calls.slice(before)).toEqual(['deploy:round 0']);
  });
});

describe('A2A JSON-RPC against an outside attacker', () => {
  it('an unknown method is -32601 with or without params; a known one without params is -32602', async () => {
    const rpc = async (body: unknown, version?: string) =>
      (
        (await (
          await fetch(`${served.url}/a2a/deployer`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${TOKEN_A}`,
              'content-type': 'application/json',
              ...(version && { 'a2a-version': version }),
            },
            body: JSON.stringify(body),
          })
        ).json()) as Loose
      ).error?.code;
    for (const version of [undefined, '1.0']) {
      expect(await rpc({ jsonrpc: '2.0', id: 1, method: 'no/such' }, version)).toBe(-32601);
      expect(await rpc({ jsonrpc: '2.0', id: 1, method: 'no/such', params: {} }, version)).toBe(-32601);
    }
    expect(await rpc({ jsonrpc: '2.0', id: 1, method: 'tasks/get' })).toBe(-32602);
    expect(await rpc({ jsonrpc: '2.0', id: 1, method: 'GetTask' }, '1.0')).toBe(-32602);
  });
});

describe('A2A cancels against an outside attacker', () => {
  it('tasks/cancel of a task waiting for approvals cancels its run (it stayed paused, its session blocked)', async () => {
    const rpc = (id: number, method: string, params: unknown) =>
      call('/a2a/deployer', {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      }).then(async (res) => (await res.json()) as Loose);
    const paused = await rpc(1, 'message/send', {
      message: { messageId: 'c1', role: 'user', parts: [{ kind: 'text', text: 'ship it' }] },
    });
    const { id: taskId, contextId } = paused.result;
    expect(paused.result.status.state).toBe('input-required');
    const cancelled = await rpc(2, 'tasks/cancel', { id: taskId });
    expect(cancelled.result.status.state).toBe('canceled');
    const run = await served.runs.latestRun('a', contextId);
    expect(run?.status).toBe('cancelled');
    // The conversation goes on: its session takes a new turn.
    const next = await rpc(3, 'message/send', {
      message: { messageId: 'c2', role: 'user', contextId, parts: [{ kind: 'text', text: 'hello' }] },
    });
    expect(next.error).toBeUndefined();
  });
});

describe('streams and bodies against an outside attacker', () => {
  it("a chat's resumed stream counts as an event stream of its token (429 past the cap)", async () => {
    const slow = await startFixture({ rounds: 4, chunkDelayMs: 200 });
    const capped = await serve(slow, 'memory:', { limits: { maxStreamsPerTenant: 1 } });
    try {
      const started = await fetch(`${capped.url}/v1/agents/noter/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'take notes', sessionId: 'chat-1' }),
      });
      const { runId } = (await started.json()) as Loose;
      const release = capped.app.registry.openStream('a');
      const resumed = await fetch(`${capped.url}/v1/agents/noter/chat/chat-1/stream`, {
        headers: { authorization: `Bearer ${TOKEN_A}` },
      });
      expect(resumed.status).toBe(429);
      release();
      await fetch(`${capped.url}/v1/runs/${runId}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN_A}` },
      });
    } finally {
      await capped.close();
      await slow.close();
    }
  });

  it('/mcp answers a body that is not JSON with a JSON-RPC parse error (-32700), as MCP clients read', async () => {
    const res = await fetch(`${served.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN_A}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0",',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('a body is JSON only as application/json (its parameters aside), not application/jsonp', async () => {
    const body = JSON.stringify({ input: 'x' });
    const as = (type: string) =>
      fetch(`${served.url}/v1/agents/noter/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': type },
        body,
      });
    expect((await as('application/jsonp')).status).toBe(415);
    expect((await as('Application/JSON; charset=utf-8')).status).toBe(201);
  });
});

describe('sessions against an outside attacker', () => {
  it('deleting a session (file store) leaves the one named `<id>.journal-1` alone', async () => {
    const files = await serve(fixture, `file:${join(dir, 'sessions')}`);
    try {
      const say = async (sessionId: string) => {
        const res = await fetch(`${files.url}/v1/agents/noter/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
          body: JSON.stringify({ input: 'note it', sessionId }),
        });
        const { runId } = (await res.json()) as Loose;
        await readEvents(`${files.url}/v1/runs/${runId}/events`, TOKEN_A);
      };
      await say('notes');
      await say('notes.journal-1');
      const session = (id: string, method = 'GET') =>
        fetch(`${files.url}/v1/sessions/${id}`, { method, headers: { authorization: `Bearer ${TOKEN_A}` } });
      expect((await session('notes', 'DELETE')).status).toBe(204);
      expect((await session('notes')).status).toBe(404);
      expect((await session('notes.journal-1')).status).toBe(200);
    } finally {
      await files.close();
    }
  });

  it('a wrong method on /mcp is 405 with the methods it takes, not 400', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const res = await call('/mcp', { method, body: '{}' });
      expect({ method, status: res.status, allow: res.headers.get('allow') }).toEqual({
        method,
        status: 405,
        allow: 'GET, POST, DELETE',
      });
      expect(((await res.json()) as Loose).error.code).toBe('method_not_allowed');
    }
  });

  it('a wrong method on every known path is 405 with the Allow header, not 400 or 404', async () => {
    const { runId, sessionId } = await pausedRun('wrong-methods');
    const probes: [string, string, string][] = [
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', '/readyz', 'GET, HEAD'],
      ['POST', '/v1/openapi.json', 'GET, HEAD'],
      ['PUT', '/v1/agents', 'GET, HEAD'],
      ['GET', '/v1/agents/deployer/runs', 'POST'],
      ['DELETE', `/v1/runs/${runId}`, 'GET, HEAD'],
      ['POST', `/v1/runs/${runId}/events`, 'GET, HEAD'],
      ['GET', `/v1/runs/${runId}/approvals`, 'POST'],
      ['GET', `/v1/runs/${runId}/answers`, 'POST'],
      ['GET', `/v1/runs/${runId}/cancel`, 'POST'],
      ['PUT', `/v1/sessions/${sessionId}`, 'GET, HEAD, DELETE'],
      ['GET', '/v1/agents/deployer/chat', 'POST'],
      ['PUT', '/v1/agents/deployer/ag-ui', 'POST'],
      ['POST', '/v1/agents/deployer/chat/some-chat/stream', 'GET, HEAD'],
      ['GET', '/a2a/deployer', 'POST'],
      ['POST', '/a2a/deployer/.well-known/agent-card.json', 'GET, HEAD'],
      ['PATCH', '/mcp', 'GET, POST, DELETE'],
    ];
    for (const [method, path, allow] of probes) {
      const res = await call(path, { method, ...(method !== 'GET' && { body: '{}' }) });
      expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
      expect(((await res.json()) as Loose).error.code).toBe('method_not_allowed');
    }
    // A path that is not there stays 404 whatever the method, an unknown agent's routes too.
    expect((await call('/a2a/nobody', { method: 'GET' })).status).toBe(404);
    for (const leaf of ['runs', 'chat', 'ag-ui', 'chat/some-chat/stream'])
      expect({
        leaf,
        status: (await call(`/v1/agents/nobody/${leaf}`, { method: 'PUT', body: '{}' })).status,
      }).toEqual({ leaf, status: 404 });
  });

  it('HEAD is taken wherever GET is: the same status and headers, no body, a stream not waited for', async () => {
    const { runId, sessionId } = await pausedRun('head-probes');
    const paths = [
      '/healthz',
      '/readyz',
      '/v1/openapi.json',
      '/v1/agents',
      `/v1/runs/${runId}`,
      `/v1/runs/${runId}/events`,
      `/v1/sessions/${sessionId}`,
      '/a2a/deployer/.well-known/agent-card.json',
      // No run of that chat is running: 204 to both.
      '/v1/agents/deployer/chat/some-chat/stream',
    ];
    for (const path of paths) {
      const [get, head] = [await call(path, { method: 'GET' }), await call(path, { method: 'HEAD' })];
      if (!path.endsWith('/events')) await get.text();
      else await get.body?.cancel();
      expect({ path, status: head.status, type: head.headers.get('content-type') }).toEqual({
        path,
        status: get.status,
        type: get.headers.get('content-type'),
      });
      expect(await head.text()).toBe('');
    }
  });

  it.runIf(HAS_IPV6)(
    'a bracketed IPv6 host ([::1]) listens, counts as loopback (no allowNetwork) and shows its URL',
    async () => {
      const v6 = await serve(fixture, 'memory:', { host: '[::1]' });
      try {
        expect(v6.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
        const res = await fetch(`${v6.url}/healthz`);
        expect(res.status).toBe(200);
      } finally {
        await v6.close();
      }
    },
  );
});

/** Whether this machine can listen on IPv6 loopback (some containers have no ::1). */
function ipv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
}
