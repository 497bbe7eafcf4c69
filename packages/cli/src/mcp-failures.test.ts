import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const built = join(repo, 'packages/cli/dist/bin.js');
const tsx = pathToFileURL(join(repo, 'node_modules/tsx/dist/loader.mjs')).href;
const testServer = pathToFileURL(join(repo, 'packages/mcp/src/test-support/test-server.ts')).href;
// The built binary when there is one (what users run); else the source, as the other CLI tests do.
const raf = existsSync(built)
  ? [built]
  : ['--conditions=@raf/source', '--import', tsx, join(repo, 'packages/cli/src/bin.ts')];

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-mcp-fail-')));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function cli(args: string[]): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...raf, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out, err, ms: Date.now() - started }));
  });
}

type Update = Record<string, unknown>;
const call = (id: string, name: string, args: Record<string, unknown>): Update[] => [
  { type: 'tool-call-start', callId: id, name },
  { type: 'tool-call-end', callId: id, name, arguments: JSON.stringify(args) },
  { type: 'finish', reason: 'toolCalls' },
];

async function agent(server: string, turns: Update[][] = [], config = ''): Promise<string> {
  await writeFile(
    join(dir, 'replay.json'),
    JSON.stringify({
      version: 1,
      model: 'm',
      turns: turns.map((updates) => ({ request: { messageCount: 2, tools: [] }, updates })),
    }),
  );
  await writeFile(
    join(dir, 'agent.yaml'),
    `name: t
model: { id: m, provider: replay, connection: { endpoint: ./replay.json } }
tools:
  - kind: mcp
    name: srv
    config: { command: ${JSON.stringify(process.execPath)}, args: ${server}${config} }
`,
  );
  return 'agent.yaml';
}

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Update);

// Issue 26: each of these made raf validate / raf run exit 13 with no output (an unref()'d backoff
// timer left the event loop empty while the server was down).
describe('a stdio MCP server that fails, through the CLI', { timeout: 120_000 }, () => {
  it('exits at start: validate and run exit 2 with the located error and its stderr; --json ends with finish', async () => {
    await writeFile(
      join(dir, 'exit.mjs'),
      "process.stderr.write('boom: cannot open the database\\n'); process.exit(1);\n",
    );
    const file = await agent('[./exit.mjs]');
    const validate = await cli(['validate', file]);
    expect(validate.code, validate.err).toBe(2);
    expect(validate.err).toMatch(
      /agent\.yaml:5:\d+ tools\[0\]\.name: cannot start MCP server 'srv' \(stdio: node\) after 3 tries: the server exited during the handshake; its stderr ended with: boom: cannot open the database/,
    );
    const run = await cli(['run', file, '--json', '-i', 'hi']);
    expect(run.code, run.err).toBe(2);
    expect(run.err).toMatch(/cannot start MCP server 'srv'/);
    const events = lines(run.out);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'other', sessionId: null });
    expect(events[0]).toMatchObject({
      type: 'error',
      code: 'RAF_CONFIG',
      message: expect.stringMatching(/boom/),
    });
    expect(validate.ms).toBeLessThan(30_000);
  });

  it('never answers initialize: exit 2 after connect_timeout_secs, naming the server and its stderr', async () => {
    await writeFile(
      join(dir, 'silent.mjs'),
      "process.stderr.write('silent server up\\n'); setInterval(() => {}, 1000);\n",
    );
    const file = await agent('[./silent.mjs]', [], ', connect_timeout_secs: 2');
    const validate = await cli(['validate', file]);
    expect(validate.code, validate.err).toBe(2);
    expect(validate.err).toMatch(
      /tools\[0\]\.name: cannot start MCP server 'srv' \(stdio: node\) after 1 try: the server did not answer the MCP handshake \(initialize\) within 2 s; its stderr ended with: silent server up/,
    );
    expect(validate.ms).toBeLessThan(20_000);
  });

  it('crashes mid-run and cannot restart: a tool error, the run goes on, --json ends with finish', async () => {
    // Starts once; every later start fails (the state it needs is gone).
    await writeFile(
      join(dir, 'flaky.mjs'),
      `import { existsSync, writeFileSync } from 'node:fs';
const marker = new URL('./started', import.meta.url);
if (existsSync(marker)) { process.stderr.write('flaky: the port is taken\\n'); process.exit(1); }
writeFileSync(marker, '1');
await import(${JSON.stringify(testServer)});
`,
    );
    const file = await agent(`[--import, ${JSON.stringify(tsx)}, ./flaky.mjs]`, [
      call('c1', 'crash', {}),
      call('c2', 'echo', { text: 'again' }),
      [
        { type: 'text-delta', delta: 'The server is down.' },
        { type: 'finish', reason: 'stop' },
      ],
    ]);
    const run = await cli(['run', file, '--json', '-i', 'go']);
    expect(run.code, run.err).toBe(0);
    const events = lines(run.out);
    const results = events.filter((e) => e.type === 'tool-result');
    expect(results).toMatchObject([
      {
        callId: 'c1',
        result: { ok: false, error: expect.stringMatching(/closed the connection during crash/) },
      },
      {
        callId: 'c2',
        result: {
          ok: false,
          error: expect.stringMatching(
            /cannot reconnect to MCP server 'srv' \(stdio: node\) after 3 tries: the server exited during the handshake; its stderr ended with: flaky: the port is taken/,
          ),
        },
      },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(run.ms).toBeLessThan(60_000);
  });
});
