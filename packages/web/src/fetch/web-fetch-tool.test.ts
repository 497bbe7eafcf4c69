import { readFileSync } from 'node:fs';
import type { ITool, ToolResult } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedHttpClient } from '../http/guarded-http.js';
import { type LocalServer, reply, startLocalServer } from '../test-support/local-server.js';
import { createWebFetchTool } from './web-fetch-tool.js';

const fixture = (name: string) => readFileSync(new URL(`../test-support/fixtures/${name}`, import.meta.url));

let server: LocalServer;
let http: GuardedHttpClient;
let tool: ITool;

beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    const path = req.url.split('?')[0];
    switch (path) {
      case '/news/night-trams':
        return reply(res, 200, 'text/html; charset=utf-8', fixture('news-article.html'));
      case '/docs/guides/retries':
        return reply(res, 200, 'text/html', fixture('docs-page.html'));
      case '/legacy/most.html': // declared only in <meta>, as old sites do
        return reply(res, 200, 'text/html', fixture('legacy-windows-1251.html'));
      case '/latin1.txt': // declared only in the header
        return reply(res, 200, 'text/plain; charset=ISO-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      case '/data.json':
        return reply(res, 200, 'application/json', '{"ok":true}');
      case '/logo.png':
        return reply(res, 200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
      case '/unlabelled':
        res.writeHead(200, {}); // no content type, NUL bytes
        return res.end(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1]));
      case '/big':
        return reply(res, 200, 'text/html', `<p>${'x'.repeat(300_000)}</p>`);
      case '/moved':
        res.writeHead(301, { location: '/news/night-trams' });
        return res.end();
      case '/slow':
        return; // never answers
      default:
        return reply(res, 404, 'text/html', '<h1>Not found</h1><p>No page here.</p>');
    }
  });
  http = new GuardedHttpClient({ allowPrivate: ['127.0.0.1'], maxBytes: 200_000, timeoutMs: 5_000 });
  tool = createWebFetchTool(http);
});
afterAll(async () => {
  await http.close();
  await server.close();
});

const context = () => ({ signal: new AbortController().signal, callId: 'c1' });
async function fetchPage(args: Record<string, unknown>, using = tool): Promise<ToolResult> {
  return using.execute(args, context());
}
function data(result: ToolResult): Record<string, unknown> {
  expect(result.ok, result.error).toBe(true);
  return result.data as Record<string, unknown>;
}

describe('web_fetch on a news article', () => {
  it('markdown (the default): the story with its metadata, without navigation, comments or scripts', async () => {
    const page = data(await fetchPage({ url: `${server.origin}/news/night-trams` }));
    expect(page).toMatchObject({
      url: `${server.origin}/news/night-trams`,
      status: 200,
      contentType: 'text/html',
      encoding: 'utf-8',
      mode: 'markdown',
      source: 'article',
      title: 'Harbour city approves night tram network after decade of debate',
      byline: 'Priya Natarajan',
      siteName: 'The Coastal Courier',
      publishedTime: '2026-11-28T07:45:00Z',
    });
    const content = page.content as string;
    expect(content).toMatch(/^After more than ten years of consultations/);
    expect(content).toContain('## Who will pay for it?');
    expect(content).toContain(
      `[the business case](${server.origin}/documents/night-network-business-case.pdf)`,
    );
    expect(content).toContain('-   Recruitment of 60 additional drivers starts in January.');
    for (const noise of [
      'Most read',
      'Comments (214)',
      'We use cookies',
      'dataLayer',
      'Subscribe to keep reading',
      'About us',
    ]) {
      expect(content).not.toContain(noise);
    }
  });

  it('plaintext: the story one block per line, no markup', async () => {
    const content = data(await fetchPage({ url: `${server.origin}/news/night-trams`, mode: 'plaintext' }))
      .content as string;
    expect(content).toContain('\n\nWho will pay for it?\n\nRoughly two thirds');
    expect(content).toContain('published in the business case, assumes');
    expect(content).not.toMatch(/[<>[\]#]/);
  });

  it('readability: the article HTML; cleaned: the whole page without scripts, styles and attributes', async () => {
    const article = data(await fetchPage({ url: `${server.origin}/news/night-trams`, mode: 'readability' }))
      .content as string;
    expect(article).toMatch(/^<div class="page" id="readability-page-1">/);
    expect(article).toContain('<h2>Who will pay for it?</h2>');
    expect(article).not.toContain('harbourside_ann');
    const cleaned = data(await fetchPage({ url: `${server.origin}/news/night-trams`, mode: 'cleaned' }))
      .content as string;
    expect(cleaned).toContain('harbourside_ann'); // the whole page, comments included
    expect(cleaned).toContain(`<a href="${server.origin}/news">News</a>`);
    expect(cleaned).not.toMatch(/<script|<style|<svg|class=|We use cookies|Subscribe to keep reading/);
  });

  it('raw: the HTML as served', async () => {
    const raw = data(await fetchPage({ url: `${server.origin}/news/night-trams`, mode: 'raw' }));
    expect(raw.content).toBe(fixture('news-article.html').toString('utf8'));
    expect(raw.title).toBeUndefined();
  });
});

describe('web_fetch on a docs page', () => {
  it('keeps tables as GitHub tables and code blocks with their language', async () => {
    const content = data(await fetchPage({ url: `${server.origin}/docs/guides/retries` })).content as string;
    expect(content).toContain('| Option | Default | Meaning |\n| --- | --- | --- |\n| `maxRetries` | 2 |');
    expect(content).toContain("```ts\nimport { createClient } from '@ferrylink/sdk';");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the page's own code holds a template literal
    expect(content).toContain('console.warn(`attempt ${attempt} failed: ${reason}`);');
    expect(content).toContain(`[Timeouts](${server.origin}/docs/timeouts)`);
    expect(content).not.toMatch(/On this page|Edit this page|Getting started/);
  });

  it('plaintext keeps code indentation and separates table cells', async () => {
    const content = data(await fetchPage({ url: `${server.origin}/docs/guides/retries`, mode: 'plaintext' }))
      .content as string;
    expect(content).toContain('Option\tDefault\tMeaning');
    expect(content).toContain('const client = createClient({\n  apiKey: process.env.FERRYLINK_KEY,');
  });
});

describe('web_fetch decoding and refusals', () => {
  it('decodes a windows-1251 page declared only in <meta>', async () => {
    const page = data(await fetchPage({ url: `${server.origin}/legacy/most.html` }));
    expect(page.encoding).toBe('windows-1251');
    expect(page.content).toContain('Длина моста составляет 212 метров.');
    expect(page.content).toContain('«Раньше приходилось идти в обход через старый мост');
  });

  it('decodes text by the charset of its Content-Type; JSON and text come back as they are', async () => {
    expect(data(await fetchPage({ url: `${server.origin}/latin1.txt` }))).toMatchObject({
      content: 'café',
      encoding: 'windows-1252', // the WHATWG name ISO-8859-1 maps to
    });
    expect(data(await fetchPage({ url: `${server.origin}/data.json` })).content).toBe('{"ok":true}');
  });

  it('refuses binary content, by type or by its bytes', async () => {
    expect(await fetchPage({ url: `${server.origin}/logo.png` })).toEqual({
      ok: false,
      error: `web_fetch: ${server.origin}/logo.png is image/png, not a text page: web_fetch reads HTML, text, JSON and XML only`,
    });
    expect((await fetchPage({ url: `${server.origin}/unlabelled` })).error).toMatch(/looks binary/);
  });

  it('reports HTTP errors with the status and the start of the page', async () => {
    expect(await fetchPage({ url: `${server.origin}/missing` })).toEqual({
      ok: false,
      error: `web_fetch: HTTP 404 from ${server.origin}/missing: <h1>Not found</h1><p>No page here.</p>`,
      data: { status: 404, url: `${server.origin}/missing` },
    });
  });

  it('follows redirects and says where it started', async () => {
    const page = data(await fetchPage({ url: `${server.origin}/moved`, mode: 'raw' }));
    expect(page).toMatchObject({
      url: `${server.origin}/news/night-trams`,
      redirectedFrom: `${server.origin}/moved`,
    });
  });

  it('caps the body size, the total time and the content handed to the model', async () => {
    expect((await fetchPage({ url: `${server.origin}/big` })).error).toBe(
      `web_fetch: ${server.origin}/big: the body is larger than 200000 bytes (maxBytes)`,
    );
    const hasty = new GuardedHttpClient({ allowPrivate: ['127.0.0.1'], timeoutMs: 300 });
    try {
      expect((await fetchPage({ url: `${server.origin}/slow` }, createWebFetchTool(hasty))).error).toBe(
        `web_fetch: ${server.origin}/slow: no complete answer within 300 ms`,
      );
    } finally {
      await hasty.close();
    }
    const short = createWebFetchTool(http, { maxChars: 100 });
    expect(data(await fetchPage({ url: `${server.origin}/news/night-trams` }, short))).toMatchObject({
      truncated: true,
      content: expect.stringMatching(/^After more than ten years/),
    });
  });

  it('refuses a local address when allowPrivate does not list it, and bad arguments', async () => {
    const guarded = new GuardedHttpClient();
    try {
      const result = await fetchPage(
        { url: `${server.origin}/news/night-trams` },
        createWebFetchTool(guarded),
      );
      expect(result.error).toMatch(
        /^web_fetch: refused http:\/\/127\.0\.0\.1:\d+: 127\.0\.0\.1 is a loopback address/,
      );
    } finally {
      await guarded.close();
    }
    expect((await fetchPage({ url: 'file:///etc/passwd' })).error).toBe(
      'web_fetch: file: URLs are not fetched (http and https only)',
    );
    expect((await fetchPage({ url: 'not a url' })).error).toBe('web_fetch: "not a url" is not a valid URL');
    expect(tool.validateArguments?.({ url: 'https://x.example', mode: 'pdf' })).toMatchObject({ ok: false });
  });
});
