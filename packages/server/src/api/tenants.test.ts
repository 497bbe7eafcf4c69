import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Fixture,
  readEvents,
  type Served,
  serve,
  startFixture,
  TOKEN_A,
  TOKEN_B,
} from '../test-support/served-fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read loosely in assertions
type Loose = any;

let fixture: Fixture;
let served: Served;

beforeAll(async () => {
  fixture = await startFixture({ rounds: 1 });
  served = await serve(fixture);
});
afterAll(async () => {
  await served.close();
  await fixture.close();
});

const call = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${served.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...(init.headers as Record<string, string> | undefined),
    },
  });

describe('tenants (SPEC §14.3: another tenant’s run or session is 404 on every endpoint)', () => {
  it('a token cannot read, resume, approve, cancel or delete another tenant’s run or session', async () => {
    const { runId, sessionId } = (await (
      await call(TOKEN_A, '/v1/agents/deployer/runs', {
        method: 'POST',
        body: JSON.stringify({ input: 'ship it', sessionId: 'shared-name' }),
      })
    ).json()) as Loose;
    await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    expect(((await (await call(TOKEN_A, `/v1/runs/${runId}`)).json()) as Loose).status).toBe('paused');

    const approve = JSON.stringify({ approvals: [{ callId: 'c0u1', approved: true }] });
    const probes: [string, string, RequestInit?][] = [
      ['GET', `/v1/runs/${runId}`],
      ['GET', `/v1/runs/${runId}/events`],
      ['GET', `/v1/runs/${runId}/events`, { headers: { 'last-event-id': '1' } }],
      ['POST', `/v1/runs/${runId}/approvals`, { body: approve }],
      ['POST', `/v1/runs/${runId}/cancel`],
      ['GET', `/v1/sessions/${sessionId}`],
      ['DELETE', `/v1/sessions/${sessionId}`],
    ];
    for (const [method, path, init] of probes) {
      const res = await call(TOKEN_B, path, { method, ...init });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      // The same answer as for a run that does not exist: nothing tells the two apart.
      const body = (await res.json()) as Loose;
      expect(body.error.code).toBe('not_found');
    }
    const missing = await call(TOKEN_B, '/v1/runs/00000000-0000-0000-0000-000000000000');
    expect(missing.status).toBe(404);

    // B naming A's session id starts B's own conversation of that name: A's history stays A's.
    const other = (await (
      await call(TOKEN_B, '/v1/agents/noter/runs', {
        method: 'POST',
        body: JSON.stringify({ input: 'hello from b', sessionId: 'shared-name' }),
      })
    ).json()) as Loose;
    await readEvents(`${served.url}/v1/runs/${other.runId}/events`, TOKEN_B);
    const bSession = (await (await call(TOKEN_B, '/v1/sessions/shared-name')).json()) as Loose;
    expect(JSON.stringify(bSession.messages)).not.toContain('ship it');

    // Nothing B did touched A's run: it still waits, and A can answer it.
    expect(fixture.calls.filter((c) => c.startsWith('deploy'))).toEqual([]);
    const aRun = (await (await call(TOKEN_A, `/v1/runs/${runId}`)).json()) as Loose;
    expect(aRun.status).toBe('paused');
    expect(
      (await call(TOKEN_A, `/v1/runs/${runId}/approvals`, { method: 'POST', body: approve })).status,
    ).toBe(202);
    const rest = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A, {
      lastEventId: aRun.lastEventId,
    });
    expect(rest.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(fixture.calls).toContain('deploy:round 0');
  });

  it('caps the open event streams of one token (429), not of the others', async () => {
    const capped = await serve(fixture, 'memory:', { limits: { maxStreamsPerTenant: 1 } });
    try {
      const start = async (token: string) =>
        (
          (await (
            await fetch(`${capped.url}/v1/agents/noter/runs`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: '{"input":"x"}',
            })
          ).json()) as Loose
        ).runId as string;
      const [a, b] = [await start(TOKEN_A), await start(TOKEN_B)];
      const events = (token: string, runId: string) =>
        fetch(`${capped.url}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${token}` } });
      // Tenant a's one stream is open (held here as a stream would hold it).
      const release = capped.app.registry.openStream('a');
      const refused = await events(TOKEN_A, a);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as Loose).error.code).toBe('too_many_streams');
      const other = await events(TOKEN_B, b);
      expect(other.status).toBe(200);
      await other.text();
      release();
      const again = await events(TOKEN_A, a);
      expect(again.status).toBe(200);
      await again.text();
    } finally {
      await capped.close();
    }
  });

  it('checks Host and Origin before the token (DNS rebinding, another site’s page)', async () => {
    const port = new URL(served.url).port;
    const { request } = await import('node:http');
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/v1/agents',
            headers: { authorization: `Bearer ${TOKEN_A}`, ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
    expect(await status({ host: `127.0.0.1:${port}` })).toBe(200);
    expect(await status({ host: `evil.example:${port}` })).toBe(403);
    expect(await status({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' })).toBe(403);
    expect(await status({ host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).toBe(200);
  });
});
