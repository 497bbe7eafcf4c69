import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectAgentResponse, type ITool, type ToolResult } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedHttpClient } from '../http/guarded-http.js';
import { webPlugin } from '../plugin.js';
import { createHttpRequestTool } from './http-request-tool.js';

let server: Server;
let base: string;
const seen: { method: string; url: string; type: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        type: req.headers['content-type'] ?? '',
        body,
      });
      if (req.url?.startsWith('/noisy')) {
        const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`x-h${i}`, `${i}`]));
        res.writeHead(200, {
          'content-type': 'application/json',
          'set-cookie': ['session=secret-token; HttpOnly', 'other=also-secret'],
          'x-long': 'v'.repeat(5_000),
          ...many,
        });
        res.end(
          JSON.stringify({ items: Array.from({ length: 5_000 }, (_, i) => ({ id: i, name: `item ${i}` })) }),
        );
        return;
      }
      if (req.url?.startsWith('/text')) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json', 'x-id': '7' });
      res.end(JSON.stringify({ method: req.method, url: req.url, got: body ? JSON.parse(body) : null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function call(tool: ITool, args: unknown): Promise<ToolResult> {
  return Promise.resolve(
    tool.execute(
      args as never,
      { callId: 'c1', toolName: tool.name, signal: AbortSignal.timeout(10_000) } as never,
    ),
  );
}

describe('http_request', () => {
  const allowed = () => createHttpRequestTool(new GuardedHttpClient({ allowPrivate: ['127.0.0.1/32'] }));

  it('sends the method, query and JSON body, and parses a JSON answer', async () => {
    const result = await call(allowed(), {
      url: `${base}/items`,
      method: 'post',
      query: { page: '2' },
      body: { kind: 'json', value: { name: 'tide' } },
    });
    expect(result.ok).toBe(true);
    const data = result.data as { status: number; headers: Record<string, string>; body: unknown };
    expect(data.status).toBe(201);
    expect(data.headers['x-id']).toBe('7');
    expect(data.body).toEqual({ method: 'POST', url: '/items?page=2', got: { name: 'tide' } });
    expect(seen.at(-1)?.type).toBe('application/json');
  });

  it('returns a non-2xx answer with its status and text body (the caller decides)', async () => {
    const result = await call(allowed(), { url: `${base}/text` });
    expect(result).toMatchObject({ ok: true, data: { status: 404, body: 'no such page' } });
  });

  it('hides cookies the server sets, bounds the headers, and cuts a JSON answer longer than maxChars as text', async () => {
    const tool = createHttpRequestTool(new GuardedHttpClient({ allowPrivate: ['127.0.0.1/32'] }), {
      maxChars: 10_000,
    });
    const result = await call(tool, { url: `${base}/noisy` });
    expect(result.ok).toBe(true);
    const data = result.data as {
      headers: Record<string, string>;
      body: unknown;
      truncated?: boolean;
      totalChars?: number;
    };
    expect(JSON.stringify(data)).not.toContain('secret');
    expect(Object.keys(data.headers).length).toBeLessThanOrEqual(40);
    expect(data.headers['x-long']).toBe(`${'v'.repeat(1_000)}…`);
    expect(typeof data.body).toBe('string');
    expect((data.body as string).length).toBe(10_000);
    expect(data.truncated).toBe(true);
    expect(data.totalChars).toBeGreaterThan(100_000);
  });

  it('refuses a private address unless allowPrivate lists it (the SSRF guard)', async () => {
    const result = await call(createHttpRequestTool(new GuardedHttpClient()), { url: `${base}/items` });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^http_request: .*127\.0\.0\.1/);
  });

  it('asks for approval for methods that change things, not for GET', async () => {
    const tool = allowed();
    expect(await tool.requiresApproval?.({ url: base, method: 'GET' })).toBe(false);
    expect(await tool.requiresApproval?.({ url: base, method: 'delete' })).toBe(true);
    expect(await tool.requiresApproval?.({ url: base, method: 'POST' })).toBe(true);
  });

  it('is a named web tool, outside what kind: web expands to', async () => {
    const yaml = (tools: string) =>
      `name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "${base}" } }\ntools:\n${tools}`;
    const named = await new DeclAgentBuilder()
      .use(webPlugin())
      .fromYaml(yaml('  - { kind: web, name: http_request }\n'))
      .explain();
    expect(named.tools.map((t) => t.name)).toEqual(['http_request']);
    const expanded = await new DeclAgentBuilder()
      .use(webPlugin())
      .fromYaml(yaml('  - { kind: web }\n'))
      .explain();
    expect(expanded.tools.map((t) => t.name)).toEqual(['web_search', 'web_fetch']);
  });
});

describe("a workflow's HttpRequestAction", () => {
  const workflow = (web: string) => `kind: workflow
name: order
${web}trigger:
  kind: OnConversationStart
  id: order
  actions:
    - kind: HttpRequestAction
      id: post_order
      method: POST
      url: =Concat("${base}/orders/", System.LastMessage.Text)
      headers: { x-token: abc }
      body: { kind: json, value: { qty: 3 } }
      response: Local.answer
    - kind: SendActivity
      activity:
        text: =Concat("created ", Local.answer.url)
`;

  it("goes through @raf/web with the file's web: settings, and its answer reaches the next action", async () => {
    const agent = await new DeclAgentBuilder()
      .use(webPlugin())
      .fromYaml(workflow('web: { allowPrivate: [127.0.0.1/32] }\n'), 'order.yaml')
      .buildAgent();
    const response = await collectAgentResponse(agent.run('42'));
    expect(response.text).toBe('created /orders/42');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/orders/42', body: '{"qty":3}' });
  });

  it("hands the author's workflow the whole answer: every header (cookies too) and a long JSON body parsed", async () => {
    const yaml = `kind: workflow
name: login
web: { allowPrivate: [127.0.0.1/32], maxChars: 1000 }
trigger:
  kind: OnConversationStart
  id: login
  actions:
    - kind: HttpRequestAction
      id: fetch
      url: ${base}/noisy
      response: Local.answer
      responseHeaders: Local.headers
    - kind: SendActivity
      activity:
        text: =Concat(Local.headers["set-cookie"], " | ", Local.answer.items[4999].name)
`;
    const agent = await new DeclAgentBuilder().use(webPlugin()).fromYaml(yaml, 'login.yaml').buildAgent();
    const response = await collectAgentResponse(agent.run('go'));
    expect(response.text).toBe('session=secret-token; HttpOnly, other=also-secret | item 4999');
  });

  it('is refused by the SSRF guard without allowPrivate, naming the address', async () => {
    const agent = await new DeclAgentBuilder()
      .use(webPlugin())
      .fromYaml(workflow(''), 'order.yaml')
      .buildAgent();
    await expect(collectAgentResponse(agent.run('42'))).rejects.toThrow(/127\.0\.0\.1/);
  });

  it("validate checks the file's web: block at its lines: a misspelt key, a wrong type, not a mapping", async () => {
    const report = async (web: string) => {
      const result = await new DeclAgentBuilder()
        .use(webPlugin())
        .fromYaml(workflow(web), 'order.yaml')
        .validate();
      return [...result.errors, ...result.warnings].map(
        (e) => `${e.severity} ${e.line}:${e.column} ${e.message}`,
      );
    };
    expect(await report('web:\n  allowPrivate: [127.0.0.1/32]\n  timeoutMS: 100\n')).toEqual([
      expect.stringMatching(/^warning 5:3 unknown key 'timeoutMS' \(did you mean 'timeoutMs'\?\)/),
    ]);
    expect(await report('web:\n  timeoutMs: soon\n')).toEqual([
      expect.stringMatching(/^error 4:14 .*number/),
    ]);
    expect(await report('web: 10.0.0.0/8\n')).toEqual([
      expect.stringMatching(/^error 3:\d+ 'web' must be a mapping/),
    ]);
    expect(await report('web: { allowPrivate: [127.0.0.1/32] }\n')).toEqual([]);
  });

  it('without @raf/web the file fails at the action, naming the package', async () => {
    const report = await new DeclAgentBuilder().fromYaml(workflow(''), 'order.yaml').validate();
    expect(report.errors.map((e) => `${e.line}:${e.column} ${e.message}`)).toEqual([
      expect.stringMatching(/^7:\d+ .*HttpRequestAction needs @raf\/web/),
    ]);
  });
});
