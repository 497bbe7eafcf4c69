import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const testServer = join(repo, 'packages/mcp/src/test-support/test-server.ts');
let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-mcp-')));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Processes whose command line holds `mark` (Linux /proc). */
async function running(mark: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(mark)) found.push(pid);
  }
  return found;
}

/** A replayed model that answers each call with the next text. */
async function replayAgent(answers: string[], extra = ''): Promise<string> {
  const turns = answers.map((text) => ({
    request: { messageCount: 2, tools: [] },
    updates: [
      { type: 'text-delta', delta: text },
      { type: 'finish', reason: 'stop' },
    ],
  }));
  await writeFile(join(dir, 'replay.json'), JSON.stringify({ version: 1, model: 'm', turns }));
  await writeFile(
    join(dir, 'agent.yaml'),
    `name: helper\ndescription: Answers questions\nmodel: { id: m, provider: replay, connection: { endpoint: ./replay.json } }\n${extra}`,
  );
  return 'agent.yaml';
}

describe('raf mcp serve', () => {
  it('serves the agent on stdio to the SDK client', async () => {
    const file = await replayAgent(['Hello from the served agent.']);
    const transport = new StdioClientTransport({
      command: process.execPath,
      // From source, started in the agent's folder: tsx by its resolved URL.
      args: [
        '--conditions=@raf/source',
        '--import',
        import.meta.resolve('tsx'),
        join(repo, 'packages/cli/src/bin.ts'),
        'mcp',
        'serve',
        file,
      ],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: 30_000 }).catch((error: Error) => {
        throw new Error(`${error.message}: ${stderr}`);
      });
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t.description])).toEqual([['helper', 'Answers questions']]);
      const result = await client.callTool({ name: 'helper', arguments: { input: 'Hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello from the served agent.' }]);
      expect(stderr).toContain('serving agent helper over MCP on stdio');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('serves over streamable HTTP (--http 0) until interrupted', async () => {
    const file = await replayAgent(['Over HTTP.']);
    const run = createMemoryIO({ cwd: dir });
    const exit = main(['mcp', 'serve', file, '--http', '0'], run.io);
    const deadline = Date.now() + 20_000;
    while (!/token: \S+/.test(run.out()) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const url = /serve: (http:\S+)/.exec(run.out())?.[1];
    const token = /token: (\S+)/.exec(run.out())?.[1];
    expect(url, run.err()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    // Without the printed token: refused (issue 26).
    expect((await fetch(url!, { method: 'POST' })).status).toBe(401);
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url!), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const result = await client.callTool({ name: 'helper', arguments: { input: 'Hi' } });
    expect(result.structuredContent).toMatchObject({ finishReason: 'stop', text: 'Over HTTP.' });
    await client.close();
    run.interrupt();
    expect(await exit).toBe(0);
  });

  it('refuses a --host other machines reach without --expose-agent-to-network', async () => {
    const file = await replayAgent(['x']);
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['mcp', 'serve', file, '--http', '0', '--host', '0.0.0.0'], run.io)).toBe(2);
    expect(run.err()).toMatch(/0\.0\.0\.0 lets other machines run it.*--expose-agent-to-network/);
    const alone = createMemoryIO({ cwd: dir });
    expect(await main(['mcp', 'serve', file, '--expose-agent-to-network'], alone.io)).toBe(2);
  });

  it('explains its usage', async () => {
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['mcp', 'serve'], run.io)).toBe(2);
    expect(run.err()).toBe(
      'raf: raf mcp serve needs an agent file: raf mcp serve agent.yaml [--http PORT] [--host HOST]\n',
    );
    const port = createMemoryIO({ cwd: dir });
    expect(await main(['mcp', 'serve', 'a.yaml', '--http', 'eighty'], port.io)).toBe(2);
    expect(port.err()).toBe('raf: --http expects a port number (got "eighty")\n');
    const bare = createMemoryIO({ cwd: dir });
    expect(await main(['mcp'], bare.io)).toBe(2);
    expect(bare.err()).toBe(
      'raf: raf mcp needs a command; try: raf mcp serve agent.yaml [--http PORT] [--host HOST], or raf mcp login|logout agent.yaml SERVER\n',
    );
    const other = createMemoryIO({ cwd: dir });
    expect(await main(['mcp', 'start'], other.io)).toBe(2);
    expect(other.err()).toMatch(/^raf: unknown command "raf mcp start"; try: raf mcp serve/);
    const help = createMemoryIO({ cwd: dir });
    expect(await main(['--help'], help.io)).toBe(0);
    expect(help.out()).toContain('raf mcp serve <agent.yaml> [--http PORT]');
  });
});

describe('raf inspect with MCP servers', () => {
  it('lists MCP tools with their server, gate and route, and stops the servers when done', async () => {
    // A mark on the servers' command lines, to find them among the machine's processes.
    const mark = `raf-inspect-${process.pid}-${Date.now()}`;
    const args = `[--import, tsx, ${JSON.stringify(testServer)}, ${mark}]`;
    const server = `{ command: ${JSON.stringify(process.execPath)}, args: ${args}, cwd: ${JSON.stringify(repo)} }`;
    const file = await replayAgent(
      [],
      `tools:\n  - kind: mcp\n    name: ops\n    config: ${server}\n    tools: [echo, record]\n    approval_mode: { always: [record] }\n` +
        `contexts:\n  - kind: mcp\n    name: docs\n    config: { command: ${JSON.stringify(process.execPath)}, args: ${args}, cwd: ${JSON.stringify(repo)}, tools: [whoami] }\n`,
    );
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['inspect', file, '--json'], run.io), run.err()).toBe(0);
    const plan = run.lines()[0] as { tools: Record<string, unknown>[] };
    expect(
      plan.tools.map(({ name, source, server, gated, approval, route }) => ({
        name,
        source,
        server,
        gated,
        approval,
        route,
      })),
    ).toEqual([
      {
        name: 'echo',
        source: 'static',
        server: 'ops',
        gated: false,
        approval: 'never',
        route: 'main-process-proxy',
      },
      {
        name: 'record',
        source: 'static',
        server: 'ops',
        gated: true,
        approval: 'always',
        route: 'main-process-proxy',
      },
      {
        name: 'whoami',
        source: 'injected',
        server: 'docs',
        gated: false,
        approval: 'never',
        route: 'main-process-proxy',
      },
      {
        name: 'read_mcp_resource',
        source: 'injected',
        server: undefined,
        gated: false,
        approval: 'never',
        route: 'main-process-proxy',
      },
      {
        name: 'get_mcp_prompt',
        source: 'injected',
        server: undefined,
        gated: false,
        approval: 'never',
        route: 'main-process-proxy',
      },
    ]);
    const human = createMemoryIO({ cwd: dir });
    expect(await main(['inspect', file], human.io)).toBe(0);
    expect(human.out()).toMatch(/record\s+static, mcp ops\s+approval: always/);
    expect(await running(mark)).toEqual([]);
  }, 60_000);
});
