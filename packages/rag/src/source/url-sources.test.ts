import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../knowledge/knowledge-base.js';

/** Real servers on 127.0.0.1: a public-looking page and an "internal" one it redirects to. */
let page: Server;
let internal: Server;
let pagePort: number;
let internalPort: number;
const internalHits: string[] = [];

async function listen(server: Server): Promise<number> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  internal = createServer((request, response) => {
    internalHits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/markdown' });
    response.end('# Internal\n\nThe admin password is zebra-otter-91.');
  });
  internalPort = await listen(internal);
  page = createServer((request, response) => {
    if (request.url === '/moved.md') {
      // The listed page sends the indexer to an address the agent was never allowed to reach.
      response.writeHead(302, { location: `http://127.0.0.1:${internalPort}/secret.md` });
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/markdown' });
    response.end('# Public guide\n\nCanoes need a bailer in rough water.');
  });
  pagePort = await listen(page);
});
afterAll(() => {
  page.close();
  internal.close();
});

describe('URL sources go through the SSRF guard', () => {
  it('does not follow a redirect to an address allowPrivate does not name (loopback stands for internal)', async () => {
    // Only the first host is allowed: `localhost`, a name; the redirect goes to the 127.0.0.1 literal.
    const kb = await KnowledgeBase.open({
      sources: [`http://localhost:${pagePort}/guide.md`, `http://localhost:${pagePort}/moved.md`],
      store: ':memory:',
      allowPrivate: ['localhost'],
    });
    try {
      const report = await kb.refresh();
      expect(report.documents).toBe(1);
      expect(report.failed).toEqual([
        {
          source: `http://localhost:${pagePort}/moved.md`,
          error: expect.stringMatching(
            /refused http:\/\/127\.0\.0\.1:\d+: 127\.0\.0\.1 is a loopback address/,
          ),
        },
      ]);
      expect(internalHits).toEqual([]);
      expect(await kb.search('admin password zebra')).toEqual([]);
      expect((await kb.search('canoes bailer'))[0]).toMatchObject({ heading: 'Public guide' });
    } finally {
      kb.close();
    }
  });

  it('refuses a loopback or private URL source unless allowPrivate names it', async () => {
    const kb = await KnowledgeBase.open({
      sources: [`http://127.0.0.1:${internalPort}/direct.md`],
      store: ':memory:',
    });
    try {
      const report = await kb.refresh();
      expect(report.documents).toBe(0);
      expect(report.failed[0]?.error).toMatch(/loopback address/);
      expect(internalHits).toEqual([]);
    } finally {
      kb.close();
    }
  });
});
