import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantTokens } from '../auth/tenant-tokens.js';
import { interruptId } from '../protocols/ag-ui.js';
import { MAX_APPROVAL_REASON } from '../runs/approval-reason.js';
import {
  type Fixture,
  readEvents,
  type Served,
  serve,
  startFixture,
  TOKEN_A,
} from '../test-support/served-fixture.js';

// The low findings of an outside attack on `raf serve`: approval reasons past the limit on the
// protocol routes, session ids the URL parser cannot round-trip, a tokens file with a repeated
// token, a client abort logged as an internal error. Real server on 127.0.0.1, real sockets.
// biome-ignore lint/suspicious/noExplicitAny: JSON answers read loosely in assertions
type Loose = any;

let fixture: Fixture;
let served: Served;
let dir: string;
const logged: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-serve-lows-'));
  fixture = await startFixture({ rounds: 1 });
  served = await serve(fixture, 'memory:', { log: (line) => logged.push(line) });
});
afterAll(async () => {
  await served?.close();
  await fixture?.close();
  await rm(dir, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${served.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TOKEN_A}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
  });
const post = (path: string, body: unknown) => call(path, { method: 'POST', body: JSON.stringify(body) });

async function pausedRun(): Promise<{ runId: string; sessionId: string; callId: string }> {
  const started = (await (await post('/v1/agents/deployer/runs', { input: 'ship it' })).json()) as Loose;
  await readEvents(`${served.url}/v1/runs/${started.runId}/events`, TOKEN_A);
  const run = (await (await call(`/v1/runs/${started.runId}`)).json()) as Loose;
  expect(run.status).toBe('paused');
  return { ...started, callId: run.pendingApprovals[0].callId };
}

describe('an approval reason is held to one limit on every route', () => {
  it('/v1, the AI SDK chat and AG-UI refuse a reason over the limit with the same 400; the run stays paused', async () => {
    const { runId, sessionId, callId } = await pausedRun();
    const long = 'R'.repeat(MAX_APPROVAL_REASON + 1);
    const v1 = await post(`/v1/runs/${runId}/approvals`, {
      approvals: [{ callId, approved: false, reason: long }],
    });
    const chat = await post('/v1/agents/deployer/chat', {
      id: sessionId,
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'ship it' }] },
        {
          id: 'a1',
          role: 'assistant',
          metadata: { runId },
          parts: [
            {
              type: 'dynamic-tool',
              toolCallId: callId,
              state: 'approval-responded',
              approval: { id: callId, approved: false, reason: long },
            },
          ],
        },
      ],
    });
    const agUi = await post('/v1/agents/deployer/ag-ui', {
      threadId: sessionId,
      runId: 'x',
      messages: [],
      tools: [],
      context: [],
      resume: [
        {
          interruptId: interruptId(runId, callId),
          status: 'resolved',
          payload: { approved: false, reason: long },
        },
      ],
    });
    const answers = [
      [v1, 'approvals.0.reason'],
      [chat, 'messages.1.parts.0.approval.reason'],
      [agUi, 'resume.0.payload.reason'],
    ] as const;
    for (const [res, field] of answers) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as Loose).error).toEqual({
        code: 'invalid_field',
        message: `${field}: at most ${MAX_APPROVAL_REASON} characters`,
      });
    }
    // The registry's own check (what A2A and MCP answers go through).
    await expect(
      served.app.registry.approve(runId, 'a', [{ callId, approved: false, reason: long }]),
    ).rejects.toMatchObject({
      status: 400,
      message: `approvals.0.reason: at most ${MAX_APPROVAL_REASON} characters`,
    });
    expect(((await (await call(`/v1/runs/${runId}`)).json()) as Loose).status).toBe('paused');
    // At the limit: taken, and the reason is the denied call's result.
    const atLimit = 'R'.repeat(MAX_APPROVAL_REASON);
    const ok = await post('/v1/agents/deployer/ag-ui', {
      threadId: sessionId,
      runId: 'y',
      messages: [],
      tools: [],
      context: [],
      resume: [
        {
          interruptId: interruptId(runId, callId),
          status: 'resolved',
          payload: { approved: false, reason: atLimit },
        },
      ],
    });
    expect(ok.status).toBe(200);
    await ok.text();
    expect(((await (await call(`/v1/runs/${runId}`)).json()) as Loose).status).toBe('finished');
  });
});

describe('session ids the path cannot carry', () => {
  it('"." and ".." are refused with a 400 on start-run, the chat and AG-UI; "..." and "a.b" work end to end', async () => {
    for (const sessionId of ['.', '..']) {
      const v1 = await post('/v1/agents/noter/runs', { input: 'note it', sessionId });
      expect(v1.status).toBe(400);
      expect(((await v1.json()) as Loose).error.message).toMatch(/^sessionId: .*other than "\." and "\.\."/);
      const chat = await post('/v1/agents/noter/chat', {
        id: sessionId,
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'note it' }] }],
      });
      expect(chat.status).toBe(400);
      expect(((await chat.json()) as Loose).error.message).toMatch(/other than "\." and "\.\."/);
      const agUi = await post('/v1/agents/noter/ag-ui', {
        threadId: sessionId,
        runId: 'r',
        messages: [{ id: 'u1', role: 'user', content: 'note it' }],
        tools: [],
        context: [],
      });
      expect(agUi.status).toBe(400);
    }
    for (const sessionId of ['...', 'a.b']) {
      const started = (await (
        await post('/v1/agents/noter/runs', { input: 'note it', sessionId })
      ).json()) as Loose;
      expect(started.sessionId).toBe(sessionId);
      await readEvents(`${served.url}/v1/runs/${started.runId}/events`, TOKEN_A);
      const session = await call(`/v1/sessions/${sessionId}`);
      expect(session.status).toBe(200);
      expect(((await session.json()) as Loose).id).toBe(sessionId);
      expect((await call(`/v1/sessions/${sessionId}`, { method: 'DELETE' })).status).toBe(204);
    }
  });
});

describe('a tokens file with a repeated or a "__proto__" key', () => {
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    await chmod(path, 0o600);
    return path;
  };

  it('is refused naming the file and the line, never the token; escapes and nesting are read', async () => {
    const dup = await file(
      'dup.json',
      '{\n  "tenantAAAAAAAAAAAAAAAA1": "alice",\n  "tenantAAAAAAAAAAAAAAAA1": "bob"\n}',
    );
    const error = await TenantTokens.fromFile(dup).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      `--tokens ${dup}:3: token number 2 repeats an earlier token (each token names one tenant)`,
    );
    expect((error as Error).message).not.toContain('tenantAAAA');
    // The same token spelled with an escape is the same token once parsed.
    const escaped = await file(
      'escaped.json',
      '{"tenantAAAAAAAAAAAAAAAA1": "alice", "\\u0074enantAAAAAAAAAAAAAAAA1": "bob"}',
    );
    await expect(TenantTokens.fromFile(escaped)).rejects.toThrow(`${escaped}:1: token number 2 repeats`);
    const proto = await file(
      'proto.json',
      '{"tenantAAAAAAAAAAAAAAAA1": "alice",\n"__proto__": {"tenantCCCCCCCCCCCCCCCC3": "carol"}}',
    );
    await expect(TenantTokens.fromFile(proto)).rejects.toThrow(
      `--tokens ${proto}:2: a "__proto__" key is not a token`,
    );
    // A repeated key inside a value is the schema's to refuse (a tenant is a string), not a token.
    const nested = await file('nested.json', '{"tenantAAAAAAAAAAAAAAAA1": {"x": 1, "x": 2}}');
    await expect(TenantTokens.fromFile(nested)).rejects.toThrow(/expected string/);
    // A token whose text holds quotes and braces is still one key.
    const fine = await file(
      'fine.json',
      '{"tok\\"en{AAAAAAAAAAAAA,1": "alice", "tenantBBBBBBBBBBBBBBBB2": "alice"}',
    );
    expect((await TenantTokens.fromFile(fine)).tenantOf('tenantBBBBBBBBBBBBBBBB2')).toBe('alice');
    expect((await TenantTokens.fromFile(fine)).tenantOf('tok"en{AAAAAAAAAAAAA,1')).toBe('alice');
  });
});

describe('a client that goes away mid-body', () => {
  it('is no internal error: nothing logged, on every route, and the server answers the next request', async () => {
    const { port } = new URL(served.url);
    const paths = [
      '/v1/agents/deployer/runs',
      '/v1/agents/deployer/chat',
      '/v1/agents/deployer/ag-ui',
      '/a2a/deployer',
      '/mcp',
    ];
    for (const path of paths) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nauthorization: Bearer ${TOKEN_A}\r\n` +
              'content-type: application/json\r\naccept: application/json, text/event-stream\r\n' +
              'content-length: 100\r\n\r\n{"in',
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 100);
        });
        socket.on('error', reject);
      });
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(logged.filter((line) => line.includes('internal error'))).toEqual([]);
    expect((await call('/v1/agents')).status).toBe(200);
  });
});
