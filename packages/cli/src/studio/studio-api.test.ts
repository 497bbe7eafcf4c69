import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { DeclAgentBuilder } from '@raf/decl';
import { runtimeDiagnostic } from '@raf/framework';
import { buildStudioIfMissing } from '@raf/studio/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  parseEvents,
  type RunningStudio,
  removeProject,
  startStudio,
  studioProject,
} from './test-support/studio-fixture.js';

let project: string;
let studio: RunningStudio | undefined;
let model: MockModelServer | undefined;

beforeAll(() => {
  buildStudioIfMissing();
}, 60_000);
afterEach(async () => {
  if (studio) expect(await studio.stop()).toBe(0);
  studio = undefined;
  await model?.close();
  model = undefined;
  await removeProject(project);
});

// biome-ignore lint/suspicious/noExplicitAny: the tests walk the API's JSON freely
type Loose = any;
const read = async (res: Response): Promise<Loose> => res.json();

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${studio!.origin}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${studio!.token}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...init.headers,
    },
  });

/** What the library says, built the way `raf studio` builds it (the project's governance file). */
function builder(file: string) {
  return new DeclAgentBuilder()
    .fromFile(join(project, file))
    .withGovernance(join(project, '.raf/governance.json'))
    .protectPaths([join(project, '.raf/sessions')], 'sessions')
    .protectPaths([join(project, '.raf/mcp-auth')], 'MCP OAuth tokens');
}

describe('raf studio: the JSON API (no browser)', () => {
  it('needs the token: none or a wrong one gets 401, the URL token sets a cookie', async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    expect((await fetch(`${studio.origin}/api/agents`)).status).toBe(401);
    const wrong = await fetch(`${studio.origin}/api/agents`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(await read(wrong)).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    expect((await fetch(`${studio.origin}/?token=wrong`)).status).toBe(401);
    const page = await fetch(studio.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const withCookie = await fetch(`${studio.origin}/api/agents`, { headers: { cookie } });
    expect(await read(withCookie)).toEqual({
      agents: [{ id: 'coordinator', name: 'coordinator', file: 'agent.yaml', kind: 'agent' }],
    });
    // Another host name (DNS rebinding) is refused even with the token (fetch cannot set Host).
    const status = await new Promise<number | undefined>((resolve, reject) =>
      request(
        `${studio!.origin}/api/agents`,
        { headers: { authorization: `Bearer ${studio!.token}`, host: 'evil.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      )
        .on('error', reject)
        .end(),
    );
    expect(status).toBe(403);
  });

  it('serves runtimeDiagnostic() and explain() verbatim', async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    const diagnostic = await read(await api('/api/agents/coordinator/diagnostic'));
    expect(diagnostic).toEqual(await runtimeDiagnostic(await builder('agent.yaml').build()));
    expect(diagnostic.subAgents.map((s: { agent: string }) => s.agent)).toEqual(['researcher', 'writer']);
    const plan = await read(await api('/api/agents/coordinator/plan'));
    expect(plan).toEqual(JSON.parse(JSON.stringify(await builder('agent.yaml').explain())));
  });

  it('says what it serves (GET /api/config) and refuses a malformed answer or attachment list', async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    expect(await read(await api('/api/config'))).toEqual({
      server: null,
      attachments: true,
      attachmentMaxBytes: 20 * 1024 * 1024,
    });
    const post = (path: string, body: unknown) => api(path, { method: 'POST', body: JSON.stringify(body) });
    const answer = await post('/api/agents/coordinator/runs/nope/inputs', { callId: 'c1', action: 'maybe' });
    expect(answer.status).toBe(404);
    const five = await post('/api/agents/coordinator/runs', {
      input: 'look',
      attachments: Array.from({ length: 5 }, (_, i) => ({ name: `p${i}.png`, data: 'AAAA' })),
    });
    expect(five.status).toBe(400);
    expect((await read(five)).error.message).toMatch(/at most 4 files/);
    const notBase64 = await post('/api/agents/coordinator/runs', {
      input: 'look',
      attachments: [{ name: 'p.png', data: 'not base64!' }],
    });
    expect((await read(notBase64)).error.message).toMatch(/base64/);
  });

  it('edits governance through the store: the diagnostic follows, a core tool refuses, bad input is a 4xx', async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    const before = await read(await api('/api/governance'));
    const grep = before.tools.find((t: { name: string }) => t.name === 'search_file');
    expect(grep).toMatchObject({
      aliases: ['grep'],
      governance: { enabled: true, core: false, promptHint: null, workerRoutingStrategy: 'auto' },
      manifest: { kind: 'builtin', requiresShell: false, requiresWrite: false },
      profile: { route: 'worker-local' },
    });
    const patched = await api('/api/governance', {
      method: 'PATCH',
      body: JSON.stringify({ tool: 'grep', enabled: false, promptHint: 'prefer read_file' }),
    });
    expect(patched.status).toBe(200);
    const after = (await read(patched)).tools.find((t: { name: string }) => t.name === 'search_file');
    expect(after.governance).toEqual({
      enabled: false,
      core: false,
      promptHint: 'prefer read_file',
      workerRoutingStrategy: 'auto',
    });
    expect(after.profile).toEqual({ route: 'disabled' });
    expect(JSON.parse(await readFile(join(project, '.raf/governance.json'), 'utf8'))).toEqual({
      version: 1,
      tools: { search_file: { enabled: false, promptHint: 'prefer read_file' } },
    });
    const diagnostic = await read(await api('/api/agents/coordinator/diagnostic'));
    const researcher = diagnostic.subAgents.find((s: { agent: string }) => s.agent === 'researcher');
    expect(researcher.tools.find((t: { name: string }) => t.name === 'search_file').runtime.route).toBe(
      'disabled',
    );

    const refusals = [
      [{ tool: 'delegate_task', enabled: false }, 400, 'governance_refused'],
      [{ tool: 'read_file', workerRoutingStrategy: 'sideways' }, 400, 'invalid_field'],
      [{ tool: 'read_file', colour: 'red' }, 400, 'unknown_field'],
      [{ enabled: true }, 400, 'invalid_field'],
    ] as const;
    for (const [body, status, code] of refusals) {
      const res = await api('/api/governance', { method: 'PATCH', body: JSON.stringify(body) });
      expect([res.status, (await read(res)).error.code]).toEqual([status, code]);
    }
    const broken = await api('/api/governance', { method: 'PATCH', body: '{not json' });
    expect([broken.status, (await read(broken)).error.code]).toEqual([400, 'invalid_json']);
    const text = await api('/api/governance', {
      method: 'PATCH',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect((await api('/api/agents/nobody/plan')).status).toBe(404);
    expect((await api('/api/nothing')).status).toBe(404);
    expect((await api('/api/agents', { method: 'DELETE' })).status).toBe(405);
    expect((await api('/assets/../../package.json')).status).toBe(404);
    const noInput = await api('/api/agents/coordinator/runs', { method: 'POST', body: '{}' });
    expect([noInput.status, (await read(noInput)).error.code]).toEqual([400, 'invalid_field']);
    expect(
      (await api('/api/agents/coordinator/runs/r1/approvals', { method: 'POST', body: '{}' })).status,
    ).toBe(404);
  });

  it('streams a run as SSE: the run event carries this run’s routes, then the lines of raf run --json', async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    await api('/api/governance', {
      method: 'PATCH',
      body: JSON.stringify({ tool: 'search_file', enabled: false }),
    });
    const res = await api('/api/agents/coordinator/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'Summarise the meeting notes into summary.md' }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseEvents(await res.text());
    const [start, ...rest] = events;
    expect(start!.event).toBe('run');
    const runtime = start!.data.runtime as {
      subAgents: { agent: string; tools: { name: string; runtime: unknown }[] }[];
    };
    const researcher = runtime.subAgents.find((s) => s.agent === 'researcher')!;
    expect(researcher.tools.find((t) => t.name === 'search_file')!.runtime).toMatchObject({
      route: 'disabled',
      state: 'disabled-in-worker',
    });
    expect(rest.every((e) => e.event === 'message')).toBe(true);
    // Progress lines and text deltas vary in number; the order of the rest is fixed.
    const kinds = rest.map((e) => e.data.type).filter((t) => t !== 'tool-progress');
    expect(kinds.filter((t, i) => t !== 'text-delta' || kinds[i - 1] !== 'text-delta')).toEqual([
      'tool-call',
      'tool-result',
      'tool-call',
      'tool-result',
      'text-delta',
      'finish',
    ]);
    expect(rest.at(-1)!.data).toMatchObject({
      type: 'finish',
      reason: 'stop',
      sessionId: start!.data.sessionId,
    });
  }, 60_000);

  it('pauses a run for approval with the target and a diff, and resumes it with the decision', async () => {
    model = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            {
              id: 'w1',
              name: 'write_file',
              arguments: { path: '../scratch/todo.md', content: 'new line\n' },
            },
          ],
        },
        { text: 'Written.' },
      ],
    });
    project = await studioProject(model.baseURL);
    studio = await startStudio(project, ['agent.yaml', 'writer-agent.yaml']);
    expect((await read(await api('/api/agents'))).agents.map((a: { id: string }) => a.id)).toEqual([
      'coordinator',
      'scribe',
    ]);
    const first = parseEvents(
      await (
        await api('/api/agents/scribe/runs', { method: 'POST', body: JSON.stringify({ input: 'update it' }) })
      ).text(),
    );
    const runId = first[0]!.data.runId as string;
    const request = first.find((e) => e.data.type === 'tool-approval-request')!.data;
    expect(request).toMatchObject({
      callId: 'w1',
      name: 'write_file',
      resolvedTarget: join(project, 'scratch/todo.md'),
    });
    const preview = first.find((e) => e.event === 'approval-preview')!.data;
    expect(preview.diff).toContain('-old line\n+new line');
    expect(first.at(-1)!.data).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
    const busy = await api('/api/agents/scribe/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'again', sessionId: runId }),
    });
    expect(busy.status).toBe(409);
    const wrongCall = await api(`/api/agents/scribe/runs/${runId}/approvals`, {
      method: 'POST',
      body: JSON.stringify({ approvals: [{ callId: 'other', approved: true }] }),
    });
    expect(wrongCall.status).toBe(400);
    const resumed = parseEvents(
      await (
        await api(`/api/agents/scribe/runs/${runId}/approvals`, {
          method: 'POST',
          body: JSON.stringify({ approvals: [{ callId: 'w1', approved: true }] }),
        })
      ).text(),
    );
    expect(resumed.slice(1).map((e) => e.data.type)).toEqual(['tool-result', 'text-delta', 'finish']);
    expect(resumed.at(-1)!.data).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(await readFile(join(project, 'scratch/todo.md'), 'utf8')).toBe('new line\n');
  }, 60_000);

  it('Ctrl-C closes the server and exits 0; a broken agent file fails at start with file:line', async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    const { origin } = studio;
    expect(await studio.stop()).toBe(0);
    studio = undefined;
    await expect(fetch(`${origin}/api/agents`)).rejects.toThrow();
    await expect(startStudio(project, ['missing.yaml'])).rejects.toThrow(
      /exited with 2: error: missing\.yaml:1:1/,
    );
  });
});
