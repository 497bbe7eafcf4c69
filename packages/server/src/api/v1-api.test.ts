import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Fixture,
  readEvents,
  type Served,
  serve,
  startFixture,
  TOKEN_A,
} from '../test-support/served-fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read loosely in assertions
type Loose = any;

let fixture: Fixture;
let served: Served;

beforeEach(async () => {
  fixture = await startFixture({ rounds: 2 });
  served = await serve(fixture);
});
afterEach(async () => {
  await served.close();
  await fixture.close();
});

const call = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(`${served.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${init.token ?? TOKEN_A}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...(init.headers as Record<string, string> | undefined),
    },
  });

describe('/v1 API', () => {
  it('lists agents, runs one to the end and replays its events in full with sequence ids', async () => {
    const agents = (await (await call('/v1/agents')).json()) as Loose;
    expect(agents.agents.map((a: { name: string }) => a.name)).toEqual(['deployer', 'noter']);
    const started = await call('/v1/agents/noter/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'go' }),
    });
    expect(started.status).toBe(201);
    const { runId, sessionId } = (await started.json()) as Loose;
    const events = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.data.type)).toEqual([
      'tool-call',
      'tool-result',
      'tool-call',
      'tool-result',
      'text-delta',
      'text-delta',
      'finish',
    ]);
    expect(events.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'stop', sessionId });
    const run = (await (await call(`/v1/runs/${runId}`)).json()) as Loose;
    expect(run).toMatchObject({
      runId,
      sessionId,
      agent: 'noter',
      status: 'finished',
      lastEventId: events.length,
    });
    // A finished run replays in full; Last-Event-ID gives exactly the rest.
    expect(await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A)).toEqual(events);
    expect(await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A, { lastEventId: 3 })).toEqual(
      events.slice(3),
    );
    const session = (await (await call(`/v1/sessions/${sessionId}`)).json()) as Loose;
    expect(session.id).toBe(sessionId);
    expect(session.messages.at(-1)).toMatchObject({ role: 'assistant' });
  });

  it('pauses for approval, resumes on the answer and continues the sequence', async () => {
    const { runId } = (await (
      await call('/v1/agents/deployer/runs', { method: 'POST', body: JSON.stringify({ input: 'ship' }) })
    ).json()) as Loose;
    const first = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    expect(first.map((e) => e.data.type)).toEqual(['tool-call', 'tool-approval-request', 'finish']);
    const run = (await (await call(`/v1/runs/${runId}`)).json()) as Loose;
    expect(run.status).toBe('paused');
    expect(run.pendingApprovals).toMatchObject([{ callId: 'c0u1', name: 'deploy' }]);
    const bad = await call(`/v1/runs/${runId}/approvals`, {
      method: 'POST',
      body: JSON.stringify({ approvals: [{ callId: 'nope', approved: true }] }),
    });
    expect(bad.status).toBe(400);
    const approved = await call(`/v1/runs/${runId}/approvals`, {
      method: 'POST',
      body: JSON.stringify({ approvals: [{ callId: 'c0u1', approved: true }] }),
    });
    expect(approved.status).toBe(202);
    const again = await call(`/v1/runs/${runId}/approvals`, {
      method: 'POST',
      body: JSON.stringify({ approvals: [{ callId: 'c0u1', approved: true }] }),
    });
    expect(again.status).toBe(409);
    const rest = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A, {
      lastEventId: first.length,
    });
    expect(rest[0]?.id).toBe(first.length + 1);
    expect(rest.map((e) => e.data.type)).toEqual(['tool-result', 'text-delta', 'text-delta', 'finish']);
    expect(fixture.calls).toEqual(['deploy:round 0']);
    expect(((await (await call(`/v1/runs/${runId}`)).json()) as Loose).status).toBe('finished');
  });

  it('cancels a paused run without running its calls, and the session takes the next run', async () => {
    const post = (path: string, body: unknown) => call(path, { method: 'POST', body: JSON.stringify(body) });
    const { runId, sessionId } = (await (
      await post('/v1/agents/deployer/runs', { input: 'ship' })
    ).json()) as Loose;
    const first = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    expect(first.at(-1)?.data).toMatchObject({ reason: 'awaitingApproval' });
    const cancelled = await post(`/v1/runs/${runId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as Loose).status).toBe('cancelled');
    const rest = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A, {
      lastEventId: first.length,
    });
    expect(rest.map((e) => e.data.type)).toEqual(['tool-result', 'finish']);
    expect(rest[0]?.data).toMatchObject({ callId: 'c0u1', result: { ok: false } });
    expect(rest.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'cancelled' });
    expect(fixture.calls).toEqual([]);
    expect(
      (await post(`/v1/runs/${runId}/approvals`, { approvals: [{ callId: 'c0u1', approved: true }] })).status,
    ).toBe(409);
    const next = await post('/v1/agents/deployer/runs', { input: 'ship again', sessionId });
    expect(next.status).toBe(201);
  });

  it('a cancel racing an approval of the same paused run is never refused, and the record tells the truth', async () => {
    const post = (path: string, body: unknown) => call(path, { method: 'POST', body: JSON.stringify(body) });
    for (let trial = 0; trial < 8; trial++) {
      const { runId } = (await (await post('/v1/agents/deployer/runs', { input: 'ship' })).json()) as Loose;
      const first = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
      expect(first.at(-1)?.data).toMatchObject({ reason: 'awaitingApproval' });
      const request: Loose = first.find((e) => e.data.type === 'tool-approval-request')?.data;
      const callId = request.callId;
      // The approval first, the cancel a few milliseconds behind it: while the approval holds the session.
      const approving = post(`/v1/runs/${runId}/approvals`, { approvals: [{ callId, approved: true }] });
      await new Promise((resolve) => setTimeout(resolve, trial % 4));
      const [cancelled, approved] = await Promise.all([post(`/v1/runs/${runId}/cancel`, {}), approving]);
      // Either order is fine; a refused cancel is not (it was a 409 `session_busy` before).
      expect(cancelled.status, `trial ${trial}`).toBe(200);
      expect([202, 409]).toContain(approved.status);
      const rest = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A, {
        lastEventId: first.length,
      });
      const finish = rest.at(-1)?.data as Loose;
      const run = (await (await call(`/v1/runs/${runId}`)).json()) as Loose;
      // A run reported cancelled ended cancelled; one that finished normally is not called cancelled.
      if (run.status === 'cancelled') expect(finish.reason, `trial ${trial}`).toBe('cancelled');
      else expect(run.status).toBe('finished');
    }
  }, 60_000);

  it('describes itself in OpenAPI 3.1, every $ref resolving inside the document', async () => {
    const doc = (await (
      await fetch(`${served.url}/v1/openapi.json`, { headers: { authorization: `Bearer ${TOKEN_A}` } })
    ).json()) as Loose;
    expect(doc.openapi).toBe('3.1.0');
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map(
      (m) => m[1],
    );
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(doc.components.schemas[ref!], ref).toBeDefined();
    expect(doc.components.schemas.StartRun).toMatchObject({
      type: 'object',
      required: ['input'],
      additionalProperties: false,
    });
    expect(doc.components.schemas.Run.properties.pendingApprovals.items).toEqual({
      $ref: '#/components/schemas/ApprovalRequest',
    });
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/agents',
        '/v1/agents/{name}/runs',
        '/v1/runs/{id}/events',
        '/v1/sessions/{id}',
      ]),
    );
  });

  it('refuses what it does not know: bad bodies, unknown fields, too large, no token', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      call('/v1/agents/noter/runs', { method: 'POST', body, headers });
    expect((await post('{"input":""}')).status).toBe(400);
    const unknown = await post('{"input":"x","sesionId":"s"}');
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as Loose).error.message).toMatch(/sesionId/);
    expect((await post('not json')).status).toBe(400);
    // Start-run takes files (content parts): its body limit is larger, its text's maximum is 1 MB.
    expect((await post(JSON.stringify({ input: 'x'.repeat(2_000_000) }))).status).toBe(400);
    expect((await call('/v1/agents/nobody/runs', { method: 'POST', body: '{"input":"x"}' })).status).toBe(
      404,
    );
    expect((await fetch(`${served.url}/v1/agents`)).status).toBe(401);
    expect((await call('/v1/agents', { token: 'wrong-token-wrong-token' })).status).toBe(401);
    expect((await call('/v1/runs/%E0%A4%A')).status).toBe(404);
    expect((await call('/v1/sessions/..%2F..%2Fetc')).status).toBe(400);
    expect((await call('/v1/agents', { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${served.url}/readyz`)).status).toBe(200);
  });
});
