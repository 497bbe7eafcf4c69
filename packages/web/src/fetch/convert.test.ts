import type { ITool } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedHttpClient } from '../http/guarded-http.js';
import { type LocalServer, reply, startLocalServer } from '../test-support/local-server.js';
import { CONVERT_LIMITS } from './convert.js';
import { createWebFetchTool } from './web-fetch-tool.js';

// Pages that made linkedom + Readability + Turndown run for minutes on the agent's event loop (the
// 30 s request cap and the call's signal could not fire): 2,000 nested <div> took 93 s in markdown
// mode, 100,000 levels never ended. Each must now end within seconds, with a result that says why
// it is text only, and the event loop must stay free while a page converts.
const nested = (levels: number) =>
  `<html><body>${'<div>'.repeat(levels)}deep text${'</div>'.repeat(levels)}</body></html>`;
const paragraphs = (count: number) =>
  `<html><head><title>Many</title></head><body><article>${'<p>hello world <a href="/a">link</a></p>'.repeat(count)}</article></body></html>`;
// ~800 KB: inside the size and depth limits, but Readability takes many seconds over it.
const SLOW_PAGE = paragraphs(20_000);

let server: LocalServer;
let http: GuardedHttpClient;
let tool: ITool;

beforeAll(async () => {
  const pages: Record<string, string> = {
    '/deep-2000': nested(2_000),
    '/deep-100000': nested(100_000),
    '/many': paragraphs(80_000), // 3.2 MB
    '/slow': SLOW_PAGE,
    '/shallow': `<html><head><title>Shallow</title></head><body><article>${nested(40)}<h2>Heading</h2><p>A paragraph of text long enough to be the article, about night trams and their timetables.</p></article></body></html>`,
  };
  server = await startLocalServer((req, res) =>
    reply(res, 200, 'text/html', pages[req.url] ?? '<p>none</p>'),
  );
  http = new GuardedHttpClient({ allowPrivate: ['127.0.0.1'], maxBytes: 6_000_000, timeoutMs: 10_000 });
  tool = createWebFetchTool(http, { maxChars: 1_000_000 });
});
afterAll(async () => {
  await http.close();
  await server.close();
});

/** The longest the event loop went without running a 20 ms timer while `work` ran. */
async function loopLag<T>(work: () => Promise<T>): Promise<{ value: T; lagMs: number; ms: number }> {
  let lagMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lagMs = Math.max(lagMs, now - last - 20);
    last = now;
  }, 20);
  const started = performance.now();
  try {
    const value = await work();
    return { value, lagMs, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

const call = (path: string, mode: string, signal = new AbortController().signal, using = tool) =>
  using.execute({ url: `${server.origin}${path}`, mode }, { signal, callId: 'c1' });

describe('web_fetch conversion is bounded', () => {
  it.each(['markdown', 'plaintext', 'readability', 'cleaned'])(
    '2,000 nested elements (%s): the text, with a warning, within seconds',
    async (mode) => {
      const { value: result, ms } = await loopLag(() => call('/deep-2000', mode));
      expect(result.ok, result.error).toBe(true);
      const data = result.data as Record<string, unknown>;
      expect(data.content).toBe('deep text');
      expect(data.warning).toMatch(/nest more than 128 levels deep: this is the page's text only/);
      expect(ms).toBeLessThan(5_000);
    },
  );

  it('100,000 nested elements (1.1 MB) end within seconds, not in a stack overflow', async () => {
    const { value: result, ms, lagMs } = await loopLag(() => call('/deep-100000', 'markdown'));
    expect(result.ok, result.error).toBe(true);
    expect(result.data).toMatchObject({ content: 'deep text', source: 'page' });
    expect(ms).toBeLessThan(5_000);
    expect(lagMs).toBeLessThan(1_000);
  });

  it('a 3.2 MB page is read as text in one linear pass, with its title and a warning', async () => {
    const { value: result, ms } = await loopLag(() => call('/many', 'plaintext'));
    expect(result.ok, result.error).toBe(true);
    const data = result.data as Record<string, unknown>;
    expect(data.title).toBe('Many');
    expect(data.warning).toMatch(/characters of HTML \(over 2000000\)/);
    expect((data.content as string).split('\n').slice(0, 3)).toEqual([
      'hello world link',
      '',
      'hello world link',
    ]);
    expect(ms).toBeLessThan(5_000);
  });

  it('a page within the limits converts as before (off the event loop)', async () => {
    const result = await call('/shallow', 'markdown');
    expect(result.ok, result.error).toBe(true);
    const data = result.data as Record<string, unknown>;
    expect(data.warning).toBeUndefined();
    expect(data.content).toContain('## Heading');
    expect(data.content).toContain('deep text');
  });

  it('a conversion past its deadline is stopped: the text, with a warning; the loop stayed free', async () => {
    const quick = createWebFetchTool(http, { maxChars: 1_000_000, convertTimeoutMs: 500 });
    const { value: result, ms, lagMs } = await loopLag(() => call('/slow', 'markdown', undefined, quick));
    expect(result.ok, result.error).toBe(true);
    const data = result.data as Record<string, unknown>;
    expect(data.warning).toMatch(/converting it took longer than 500 ms/);
    expect((data.content as string).startsWith('hello world link\n\nhello world link')).toBe(true);
    expect(ms).toBeLessThan(4_000);
    expect(lagMs).toBeLessThan(500);
    expect(CONVERT_LIMITS.timeoutMs).toBe(10_000);
  });

  it('an abort during the conversion ends the call promptly', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const pending = call('/slow', 'markdown', controller.signal);
    // The page arrives in milliseconds; its conversion takes seconds.
    setTimeout(() => controller.abort(new Error('stopped by the user')), 1_000);
    await expect(pending).rejects.toThrow('stopped by the user');
    expect(performance.now() - started).toBeLessThan(2_500);
  });
});
