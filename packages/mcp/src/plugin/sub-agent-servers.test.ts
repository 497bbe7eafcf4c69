import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { DeclAgentBuilder } from '@raf/decl';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLog, readEvents, stdioTestServer } from '../test-support/servers.js';
import { mcpPlugin } from './mcp-plugin.js';

let dir: string | undefined;
let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

// Real processes: a worker under tsx and a stdio MCP server, on a shared machine.
describe('MCP servers of sub-agents', { timeout: 90_000 }, () => {
  it("a delegation's worker starts no server of a sibling (it gets only its own sub-agent's definition)", async () => {
    const events = eventLog();
    const queues: Record<string, object[]> = {
      coordinator: [
        { toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { agent: 'researcher', task: 'go' } }] },
        { text: 'done' },
      ],
      researcher: [{ text: 'researched' }],
    };
    server = await startMockModelServer({
      turns: (request) => queues[String(request.body?.model)]?.shift() ?? { text: 'nothing scripted' },
    });
    const model = (id: string) => ({ id, provider: 'custom', connection: { endpoint: server!.baseURL } });
    dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-mcp-subs-')));
    const file = join(dir, 'agent.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'coordinator',
        model: model('coordinator'),
        subAgents: [
          { name: 'researcher', model: model('researcher') },
          {
            name: 'writer',
            model: model('writer'),
            tools: [{ kind: 'mcp', name: 'notes', config: stdioTestServer({ TEST_SERVER_LOG: events }) }],
          },
        ],
      }),
    );
    await using builder = new DeclAgentBuilder().fromFile(file).use(mcpPlugin());
    const agent = await builder.build();
    const starts = () => readEvents(events).filter((e) => e.event === 'start');
    // The parent builds the writer too (its proxied tools, inline runs): one server, started here.
    expect(starts().map((e) => e.parent)).toEqual([process.pid]);
    const updates = [];
    for await (const u of agent.run('start')) updates.push(u);
    expect(
      updates.filter((u) => u.type === 'tool-called').map((u) => u.type === 'tool-called' && u.result),
    ).toEqual([{ ok: true, data: { agent: 'researcher', answer: 'researched' } }]);
    // Before, the researcher's worker planned the whole file again and started the writer's server.
    expect(starts().map((e) => e.parent)).toEqual([process.pid]);
  });
});
