import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-upstream-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('files written for the upstream raf binary', () => {
  it('a cli-agent.yaml-style file runs its kind: function tools echo and add, as the upstream CLI registers them', async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            { id: 'e1', name: 'echo', arguments: { text: 'hi there' } },
            { id: 'a1', name: 'add', arguments: { a: 2, b: 40 } },
          ],
        },
        { text: 'hi there, and 42.' },
      ],
    });
    await writeFile(
      join(dir, 'cli-agent.yaml'),
      [
        'kind: prompt',
        'name: cli-agent',
        'displayName: CLI 助手',
        'model:',
        '  id: agnes-2.0-flash',
        '  provider: openai',
        '  connection:',
        '    kind: key',
        '    api_key: sk-test',
        `    endpoint: ${server.baseURL}`,
        'instructions: You are a helpful AI assistant. Respond concisely.',
        'tools:',
        '  - kind: function',
        '    name: echo',
        '  - kind: function',
        '    name: add',
        'max_tool_rounds: 200',
        '',
      ].join('\n'),
    );
    const run = memoryIO({ cwd: dir });
    expect(await main(['run', 'cli-agent.yaml', '-i', 'echo and add', '--json'], run.io), run.err()).toBe(0);
    const results = run.lines().filter((l) => l.type === 'tool-result');
    expect(results).toMatchObject([
      { callId: 'e1', name: 'echo', result: { ok: true, data: 'hi there' } },
      { callId: 'a1', name: 'add', result: { ok: true, data: '42' } },
    ]);
    // The same names, descriptions and argument schemas as the upstream's `#[tool]` functions.
    const body = server.requests[0]?.body as { tools: { function: Record<string, unknown> }[] } | undefined;
    const tools = body?.tools ?? [];
    expect(tools.map((t) => t.function)).toEqual([
      {
        name: 'echo',
        description: 'Echoes back the input text',
        parameters: {
          type: 'object',
          properties: { text: { type: 'string', description: 'The text to echo' } },
          required: ['text'],
          additionalProperties: false,
        },
      },
      {
        name: 'add',
        description: 'Adds two numbers together',
        parameters: {
          type: 'object',
          properties: {
            a: { type: 'integer', description: 'First number' },
            b: { type: 'integer', description: 'Second number' },
          },
          required: ['a', 'b'],
          additionalProperties: false,
        },
      },
    ]);
    expect(run.lines().at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });
});

const mcpInstalled = (() => {
  try {
    import.meta.resolve('@raf/mcp');
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(mcpInstalled)('MCP servers from the configuration users already have', () => {
  it('inspect shows each named server and where it came from (mcp.json beside, --mcp-config); an unknown one is exit 2', async () => {
    const server = (name: string) => ({ command: process.execPath, args: ['-e', `/* ${name} */`] });
    await writeFile(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { fs: server('fs') } }));
    await writeFile(
      join(dir, 'team.json'),
      JSON.stringify({ mcpServers: { search: { url: 'http://127.0.0.1:9/mcp' } } }),
    );
    await writeFile(
      join(dir, 'agent.yaml'),
      'name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }\n',
    );
    const run = memoryIO({ cwd: dir });
    expect(await main(['inspect', 'agent.yaml', '--mcp-config', 'team.json'], run.io), run.err()).toBe(0);
    expect(run.out()).toContain(
      'mcp servers (by name):\n  fs                   stdio  from mcp.json\n  search               http   from --mcp-config team.json\n',
    );
    await writeFile(
      join(dir, 'agent.yaml'),
      'name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }\ntools:\n  - kind: mcp\n    server: nope\n',
    );
    const bad = memoryIO({ cwd: dir });
    expect(await main(['validate', 'agent.yaml'], bad.io)).toBe(2);
    expect(bad.err()).toContain(
      "names the MCP server 'nope', which no mcpServers map declares; known: fs (mcp.json)",
    );
  });
});
