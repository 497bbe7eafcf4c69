import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, context, type TestAgent, toolNamed } from '../test-support/agents.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A streamable HTTP server of a few lines: it answers the handshake and the tool list, and
 * answers `tools/call` with a JSON body that never ends (no SDK server can send that).
 */
async function endlessServer(): Promise<string> {
  const chunk = Buffer.alloc(1 << 20, 97);
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    const message = JSON.parse(body || '{}') as {
      id?: unknown;
      method?: string;
      params?: { protocolVersion?: string };
    };
    const answer = (result: unknown) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'initialize')
      return answer({
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'endless', version: '1' },
      });
    if (message.method === 'tools/list')
      return answer({ tools: [{ name: 'flood', inputSchema: { type: 'object' } }] });
    if (message.method !== 'tools/call') return answer({});
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(
      `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text","text":"`,
    );
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pump);
    res.on('close', () => res.off('drain', pump));
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

// A server whose answer never ended grew raf by 5 GB within the call's 60 s (the SDK reads a body
// whole), enough for the OOM killer on a small machine.
describe('an HTTP server whose answer never ends', { timeout: 60_000 }, () => {
  it('is cut at 64 MiB: the call fails saying so, long before its timeout, and memory stays bounded', async () => {
    const url = await endlessServer();
    const test: TestAgent = await buildTestAgent({
      tools: [
        { kind: 'mcp', name: 'endless', config: { url, transport: 'streamable-http', timeout_secs: 50 } },
      ],
    });
    cleanups.push(() => test.plugin.close());
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const result = await toolNamed(test.agent.tools, 'flood').execute({}, context());
    expect(result).toMatchObject({ ok: false });
    expect((result as { error: string }).error).toMatch(
      /MCP server 'endless' failed during flood: the server sent an answer over 64 MiB/,
    );
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(1024 * 1024 * 1024);
  });
});
