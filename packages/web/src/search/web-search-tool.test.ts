import { readFileSync } from 'node:fs';
import { ConfigError, type ToolResult } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWebConfig } from '../config/web-config.js';
import { GuardedHttpClient } from '../http/guarded-http.js';
import { type LocalServer, reply, startLocalServer } from '../test-support/local-server.js';
import { createWebSearchTool, searchBackendFor } from './web-search-tool.js';

const fixture = (name: string) => readFileSync(new URL(`../test-support/fixtures/${name}`, import.meta.url));

// One local server replays what each service answered; the path says which service is asked.
let server: LocalServer;
let http: GuardedHttpClient;
let mode: 'ok' | 'anomaly' | 'down' = 'ok';

beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    if (mode === 'down') return reply(res, 503, 'text/html', '<h1>503 Service Unavailable</h1>');
    const path = req.url.split('?')[0];
    if (path === '/html/') {
      if (mode === 'anomaly') return reply(res, 202, 'text/html', fixture('duckduckgo-anomaly.html'));
      return reply(res, 200, 'text/html; charset=UTF-8', fixture('duckduckgo-results.html'));
    }
    if (path === '/searxng/search')
      return reply(res, 200, 'application/json', fixture('searxng-results.json'));
    if (path === '/res/v1/web/search') {
      if (req.headers['x-subscription-token'] !== 'brave-key') {
        return reply(
          res,
          401,
          'application/json',
          '{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}',
        );
      }
      return reply(res, 200, 'application/json', fixture('brave-results.json'));
    }
    if (path === '/search' && req.method === 'POST') {
      if (req.headers.authorization !== 'Bearer tvly-key')
        return reply(res, 401, 'application/json', '{"detail":{"error":"Unauthorized"}}');
      return reply(res, 200, 'application/json', fixture('tavily-results.json'));
    }
    return reply(res, 404, 'text/plain', 'no such endpoint');
  });
  http = new GuardedHttpClient({ allowPrivate: ['127.0.0.1'] });
});
afterAll(async () => {
  await http.close();
  await server.close();
});

function toolFor(config: Record<string, unknown>, env: Record<string, string> = {}) {
  const parsed = parseWebConfig(config);
  return createWebSearchTool(searchBackendFor(parsed, env), http, parsed.maxResults);
}
const run = (config: Record<string, unknown>, args: Record<string, unknown>, env?: Record<string, string>) =>
  toolFor(config, env).execute(args, { signal: new AbortController().signal, callId: 'c1' });
const results = (result: ToolResult) => {
  expect(result.ok, result.error).toBe(true);
  return (result.data as { results: { title: string; url: string; snippet: string }[] }).results;
};

describe('web_search backends against recorded answers', () => {
  it('DuckDuckGo HTML (the default): organic results with their targets, ads left out', async () => {
    mode = 'ok';
    const found = results(
      await run(
        { baseUrl: `${server.origin}/html/`, region: 'de-de' },
        { query: 'rust async runtime', max_results: 4 },
      ),
    );
    expect(found).toEqual([
      {
        title: 'Tokio - An asynchronous Rust runtime',
        url: 'https://tokio.rs/',
        snippet:
          'Tokio is an event-driven, non-blocking I/O platform for writing asynchronous applications with the Rust programming language. At a high level, it provides a few major components: A multithreaded, work-stealing based task scheduler.',
      },
      {
        title: 'The Async Ecosystem - Asynchronous Programming in Rust',
        url: 'https://rust-lang.github.io/async-book/08_ecosystem/00_chapter.html',
        snippet:
          "Unlike other languages, Rust doesn't ship an async runtime in the standard library. Instead, you pick one from the ecosystem: Tokio, async-std & smol are the best known.",
      },
      {
        title: 'GitHub - smol-rs/smol: A small and fast async runtime for Rust',
        url: 'https://github.com/smol-rs/smol',
        snippet: 'A small and fast async runtime. This crate simply re-exports other smaller async crates.',
      },
      {
        title: 'Why async Rust? & what it costs',
        url: 'https://withoutboats.github.io/blog/why-async-rust.html',
        snippet:
          'The async/await syntax was stabilised in 2019; this post explains the design constraints behind it.',
      },
    ]);
    const asked = new URL(server.requests.at(-1)!.url, server.origin);
    expect([asked.pathname, asked.searchParams.get('q'), asked.searchParams.get('kl')]).toEqual([
      '/html/',
      'rust async runtime',
      'de-de',
    ]);
  });

  it('SearXNG JSON: results in order, non-web URLs dropped, max_results defaulting to the config', async () => {
    const found = results(
      await run(
        { backend: 'searxng', baseUrl: `${server.origin}/searxng`, maxResults: 10 },
        { query: 'rust async runtime' },
      ),
    );
    expect(found.map((r) => r.url)).toEqual([
      'https://tokio.rs/',
      'https://rust-lang.github.io/async-book/08_ecosystem/00_chapter.html',
      'https://github.com/smol-rs/smol',
    ]);
    expect(found[0]?.snippet).toMatch(/^Tokio is an event-driven/);
    expect(server.requests.at(-1)!.url).toBe('/searxng/search?q=rust+async+runtime&format=json');
  });

  it('Brave: the key from the environment, highlighting stripped from titles and snippets', async () => {
    const found = results(
      await run(
        { backend: 'brave', baseUrl: server.origin },
        { query: 'rust async runtime', max_results: 2 },
        { BRAVE_API_KEY: 'brave-key' },
      ),
    );
    expect(found).toEqual([
      {
        title: 'Tokio - An asynchronous Rust runtime',
        url: 'https://tokio.rs/',
        snippet:
          'Tokio is an event-driven, non-blocking I/O platform for writing asynchronous applications with the Rust programming language.',
      },
      {
        title: 'Async programming in Rust & the ecosystem',
        url: 'https://rust-lang.github.io/async-book/',
        snippet:
          'This book aims to be a thorough guide to asynchronous programming in Rust, from beginner to advanced.',
      },
    ]);
    expect(server.requests.at(-1)!.url).toBe('/res/v1/web/search?q=rust+async+runtime&count=2');
  });

  it('Tavily: a POST with the key from config.apiKey as a bearer token', async () => {
    const found = results(
      await run(
        { backend: 'tavily', baseUrl: server.origin, apiKey: 'tvly-key' },
        { query: 'rust async runtime' },
      ),
    );
    expect(found.map((r) => r.title)).toEqual([
      'Tokio - An asynchronous Rust runtime',
      'Asynchronous Programming in Rust',
    ]);
    expect(JSON.parse(server.requests.at(-1)!.body)).toEqual({
      query: 'rust async runtime',
      max_results: 5,
      search_depth: 'basic',
    });
  });
});

describe('web_search failures name the backend', () => {
  it('a refused key, an outage, a bot check, each a tool error the model reads', async () => {
    mode = 'ok';
    expect(await run({ backend: 'brave', baseUrl: server.origin, apiKey: 'wrong' }, { query: 'q' })).toEqual({
      ok: false,
      error: `web_search: the brave backend failed: HTTP 401 from ${server.origin}/res/v1/web/search?q=q&count=5: {"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}`,
    });
    mode = 'down';
    expect((await run({ backend: 'searxng', baseUrl: server.origin }, { query: 'q' })).error).toBe(
      `web_search: the searxng backend failed: HTTP 503 from ${server.origin}/search?q=q&format=json: <h1>503 Service Unavailable</h1>`,
    );
    mode = 'anomaly';
    expect((await run({ baseUrl: `${server.origin}/html/` }, { query: 'q' })).error).toBe(
      'web_search: the duckduckgo backend failed: DuckDuckGo asked for a bot check (too many queries from this address); retry later',
    );
    mode = 'ok';
  });

  it('the guard applies to search backends too', async () => {
    const guarded = new GuardedHttpClient();
    try {
      const tool = createWebSearchTool(
        searchBackendFor(parseWebConfig({ baseUrl: `${server.origin}/html/` }), {}),
        guarded,
      );
      const result = await tool.execute(
        { query: 'q' },
        { signal: new AbortController().signal, callId: 'c' },
      );
      expect(result.error).toMatch(
        /^web_search: the duckduckgo backend failed: refused http:\/\/127\.0\.0\.1:\d+: 127\.0\.0\.1 is a loopback address/,
      );
    } finally {
      await guarded.close();
    }
  });

  it('a missing key or URL is a ConfigError when the agent is built', () => {
    const build = (config: Record<string, unknown>) => () => searchBackendFor(parseWebConfig(config), {});
    expect(build({ backend: 'brave' })).toThrow(
      'web_search backend "brave" needs an API key: config.apiKey (e.g. $BRAVE_API_KEY) or BRAVE_API_KEY in the environment',
    );
    expect(build({ backend: 'tavily', connection: { key_env_var: 'MY_TAVILY' } })).toThrow(
      'or MY_TAVILY in the environment',
    );
    expect(build({ backend: 'searxng' })).toThrow(ConfigError);
    expect(build({ backend: 'bing' })).toThrow(
      /kind: web config: backend: Invalid option: expected one of "duckduckgo"\|"searxng"\|"brave"\|"tavily"/,
    );
  });
});
