import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const installed = (name: string) => {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
};
let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function agent(endpoint: string, extra = ''): Promise<string> {
  await writeFile(join(dir, 'notes.txt'), 'hello notes\n');
  const yaml = `name: cli-test\nmodel: { id: m, provider: custom, connection: { endpoint: "${endpoint}" } }\ncontexts:\n  - kind: workspace\n    name: here\n    config: { root: ., policy: approve }\ntools:\n  - kind: file\n${extra}`;
  await writeFile(join(dir, 'agent.yaml'), yaml);
  return 'agent.yaml';
}

describe('raf validate, inspect, schema', () => {
  it('validates a good file (exit 0) and reports every problem with file:line:col (exit 2)', async () => {
    const good = memoryIO({ cwd: dir });
    expect(await main(['validate', await agent('http://127.0.0.1:9/v1')], good.io)).toBe(0);
    expect(good.out()).toBe('ok: agent.yaml\n');
    await writeFile(
      join(dir, 'bad.yaml'),
      'name: x\nmodel: { id: m }\ntools:\n  - kind: wiki\nmaxToolRounds: 0\n',
    );
    const bad = memoryIO({ cwd: dir });
    expect(await main(['validate', 'bad.yaml'], bad.io)).toBe(2);
    expect(bad.err()).toBe(
      'error: bad.yaml:4:11 tools[0].kind: "wiki" is a context kind, not a tool kind: declare it under `contexts:` (contexts: [{ kind: wiki }])\n' +
        'error: bad.yaml:5:16 maxToolRounds: Too small: expected number to be >=1\n',
    );
    const json = memoryIO({ cwd: dir });
    expect(await main(['validate', 'bad.yaml', '--json'], json.io)).toBe(2);
    expect(json.lines()[0]).toMatchObject({
      ok: false,
      errors: [{ file: 'bad.yaml', line: 4, column: 11, path: 'tools[0].kind' }, {}],
      warnings: [],
    });
  });

  it('exits 2 with a precise error for every file of the broken corpus', async () => {
    const corpus = join(repo, 'packages/decl/test-fixtures/broken');
    for (const file of (await readdir(corpus)).sort()) {
      // "needs @raf/web" is no error where the CLI finds @raf/web installed (as in this repo).
      const needs = /# expect: .* needs (@raf\/[a-z]+)/.exec(await readFile(join(corpus, file), 'utf8'))?.[1];
      if (needs && installed(needs)) continue;
      const run = memoryIO({ cwd: corpus });
      expect(await main(['validate', file, '--strict'], run.io), file).toBe(2);
      expect(run.err(), file).toMatch(new RegExp(`^error: ${file.replace('.', '\\.')}:\\d+:\\d+ `));
      expect(run.err(), file).not.toMatch(/\n\s+at /);
    }
  });

  it('inspect --json prints the effective plan of SPEC §11.1', async () => {
    const run = memoryIO({ cwd: join(repo, 'examples/quickstart') });
    expect(await main(['inspect', 'agent.yaml', '--json'], run.io)).toBe(0);
    const plan = (run.lines()[0] ?? {}) as Record<string, unknown> & { tools: Record<string, unknown>[] };
    expect(plan).toMatchObject({
      name: 'quickstart',
      model: { provider: 'replay', id: 'gpt-4o-mini' },
      toolLoop: true,
      maxToolRounds: 6,
      contexts: [
        { kind: 'history', name: 'InMemoryHistoryProvider', order: 0 },
        // The name the file gives the workspace, as tools[].workspace shows it.
        { kind: 'workspace', name: 'project', provider: 'WorkspaceContextProvider', order: 1 },
      ],
      warnings: [],
    });
    expect(plan.tools).toHaveLength(11);
    expect(plan.tools.find((t) => t.name === 'run_command')).toEqual({
      name: 'run_command',
      kind: 'file',
      source: 'workspace',
      workspace: 'project',
      gated: true,
      approval: 'unless-allowed',
      executionMode: 'parallel',
      route: 'worker-local',
    });
  });

  it('inspect lists the protected paths of each workspace: the agent file, the sessions folder and the MCP tokens', async () => {
    const file = await agent('http://127.0.0.1:9/v1');
    const json = memoryIO({ cwd: dir });
    expect(await main(['inspect', file, '--json', '--sessions-dir', 'runs'], json.io)).toBe(0);
    const plan = json.lines()[0] as { contexts: { kind: string; protectedPaths?: unknown[] }[] };
    expect(plan.contexts.find((c) => c.kind === 'workspace')?.protectedPaths).toEqual([
      { path: join(dir, 'agent.yaml'), reason: 'agent definition', reads: 'refused', writes: 'refused' },
      { path: join(dir, 'runs'), reason: 'sessions', reads: 'refused', writes: 'refused' },
      // `raf mcp login`'s tokens (beside a --sessions-dir, in the local .raf).
      {
        path: join(dir, '.raf', 'mcp-auth'),
        reason: 'MCP OAuth tokens',
        reads: 'refused',
        writes: 'refused',
      },
      { path: '**/.raf/', reason: '.raf', reads: 'refused', writes: 'refused' },
      { path: '**/.env', reason: '.env', reads: 'refused', writes: 'refused' },
      { path: '**/.env.*', reason: '.env', reads: 'refused', writes: 'refused' },
      { path: '**/.git', reason: '.git', reads: 'allowed', writes: 'ask' },
      { path: '**/.git/**', reason: '.git', reads: 'allowed', writes: 'ask' },
    ]);
    const human = memoryIO({ cwd: dir });
    expect(await main(['inspect', file], human.io)).toBe(0);
    expect(human.out()).toContain(
      `     protected (not readable or writable by the file tools): ${join(dir, 'agent.yaml')} (agent definition), ${join(dir, '.raf', 'sessions')} (sessions), ${join(dir, '.raf', 'mcp-auth')} (MCP OAuth tokens), **/.raf/ (.raf), **/.env (.env), **/.env.* (.env)\n` +
        '     writes ask: **/.git (.git), **/.git/** (.git)\n',
    );
  });

  it('registers the installed extensions: kind web and kind openapi build without code', async () => {
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Shelter', version: '1' },
      servers: [{ url: 'https://shelter.example/api' }],
      paths: {
        '/dogs/{id}': {
          get: {
            operationId: 'getDog',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    await writeFile(join(dir, 'shelter.json'), JSON.stringify(spec));
    await writeFile(
      join(dir, 'agent.yaml'),
      'name: ext\nmodel: { id: m, provider: openai, connection: { apiKey: k } }\ntools:\n  - kind: web\n  - kind: openapi\n    name: shelter\n    config: { specPath: shelter.json }\n',
    );
    const run = memoryIO({ cwd: dir });
    expect(await main(['inspect', 'agent.yaml', '--json'], run.io), run.err()).toBe(0);
    const plan = run.lines()[0] as { tools: { name: string; kind: string; route: string }[] };
    expect(plan.tools.map((t) => [t.name, t.kind, t.route])).toEqual([
      ['web_search', 'web', 'worker-local'],
      ['web_fetch', 'web', 'worker-local'],
      ['getDog', 'openapi', 'main-process-proxy'],
    ]);
  });

  it('schema prints the JSON Schema of agent files', async () => {
    const run = memoryIO({ cwd: dir });
    expect(await main(['schema'], run.io)).toBe(0);
    const schema = JSON.parse(run.out()) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['name', 'model', 'tools', 'contexts', 'maxToolRounds']),
    );
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'model']));
  });
});

describe('raf run', () => {
  it('--json prints the NDJSON of SPEC §11.1, finish last with the session id', async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'notes.txt' } }],
          usage: { promptTokens: 5, completionTokens: 1, totalTokens: 6 },
        },
        { text: 'It says hello.' },
      ],
    });
    const run = memoryIO({ cwd: dir });
    expect(
      await main(
        ['run', await agent(server.baseURL), '-i', 'read notes', '--json', '--session', 's1'],
        run.io,
      ),
    ).toBe(0);
    const lines = run.lines();
    expect(lines[0]).toEqual({
      type: 'tool-call',
      callId: 'c1',
      name: 'read_file',
      arguments: { path: 'notes.txt' },
    });
    expect(lines[1]).toMatchObject({
      type: 'tool-result',
      callId: 'c1',
      name: 'read_file',
      result: { ok: true, data: { content: 'hello notes', scope: 'workspace' } },
    });
    expect(
      lines
        .filter((l) => l.type === 'text-delta')
        .map((l) => l.delta)
        .join(''),
    ).toBe('It says hello.');
    expect(lines.at(-1)).toMatchObject({
      type: 'finish',
      reason: 'stop',
      sessionId: 's1',
      usage: { totalTokens: 6 },
    });
    expect(await readdir(join(dir, '.raf/sessions'))).toEqual(['s1.json']);
  });

  it('exits 3 when paused for approval, and resumes from the saved session with --approve all', async () => {
    server = await startMockModelServer({
      turns: [
        { toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command: 'echo hi' } }] },
        { text: 'Ran it.' },
      ],
    });
    const file = await agent(server.baseURL);
    const paused = memoryIO({ cwd: dir });
    expect(await main(['run', file, '-i', 'run echo', '--json', '--session', 'p1'], paused.io)).toBe(3);
    expect(paused.lines().at(-2)).toMatchObject({
      type: 'tool-approval-request',
      callId: 'c1',
      name: 'run_command',
      resolvedTarget: `${dir}$ echo hi`,
    });
    expect(paused.lines().at(-1)).toMatchObject({
      type: 'finish',
      reason: 'awaitingApproval',
      sessionId: 'p1',
    });
    expect(paused.err()).toContain('resume with: raf run agent.yaml --session p1 --approve all|none');
    const resumed = memoryIO({ cwd: dir });
    expect(await main(['run', file, '--session', 'p1', '--approve', 'all'], resumed.io)).toBe(0);
    expect(resumed.out()).toBe('Ran it.\n');
    expect(resumed.err()).toContain('✓ approved (--approve all): run_command');
    expect(resumed.err()).toContain('→ run_command {"command":"echo hi"} ✓ exit 0');
    const sent = server.requests[1]?.body as { messages: { role: string }[] };
    expect(sent.messages.slice(-2).map((m) => m.role)).toEqual(['assistant', 'tool']);
  });

  it('--json with --approve all prints one finish, last, when the CLI answers the approvals itself', async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command: 'echo hi' } }],
          usage: { promptTokens: 5, completionTokens: 1, totalTokens: 6 },
        },
        { text: 'Ran it.', usage: { promptTokens: 7, completionTokens: 2, totalTokens: 9 } },
      ],
    });
    const run = memoryIO({ cwd: dir });
    const file = await agent(server.baseURL);
    expect(
      await main(['run', file, '-i', 'run echo', '--json', '--approve', 'all', '--session', 'a1'], run.io),
    ).toBe(0);
    const lines = run.lines();
    expect(lines.map((l) => l.type)).toEqual([
      'tool-call',
      'tool-approval-request',
      'tool-result',
      'text-delta',
      'text-delta',
      'finish',
    ]);
    // The usage of the whole invocation: both model turns.
    expect(lines.at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
      sessionId: 'a1',
    });
  });

  it('exits 4 on a model failure, 2 on a bad file and 130 when interrupted', async () => {
    server = await startMockModelServer({
      turns: [
        { status: 400, errorBody: { error: { message: 'bad model' } } },
        { text: 'slow', delayMs: 5000 },
      ],
    });
    const file = await agent(server.baseURL);
    const failed = memoryIO({ cwd: dir });
    expect(await main(['run', file, '-i', 'x', '--json'], failed.io)).toBe(4);
    expect(failed.lines().find((l) => l.type === 'error')).toMatchObject({
      message: expect.stringContaining('bad model'),
    });
    const missing = memoryIO({ cwd: dir });
    expect(await main(['run', 'nope.yaml', '-i', 'x'], missing.io)).toBe(2);
    expect(missing.err()).toBe('error: nope.yaml:1:1 no such file\n');
    const slow = memoryIO({ cwd: dir });
    const running = main(['run', file, '-i', 'x'], slow.io);
    setTimeout(() => slow.interrupt(), 200);
    expect(await running).toBe(130);
  });

  it('refuses what validate refuses (an unknown key, an unknown policy); prints its warnings and still runs', async () => {
    server = await startMockModelServer({ turns: [{ text: 'ran' }, { text: 'ran again' }] });
    const model = `model: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }`;
    await writeFile(
      join(dir, 'agent.yaml'),
      `name: w\n${model}\ncontxts: []\ncontexts:\n  - kind: workspace\n    name: here\n    config: { root: ., policy: sometimes }\n`,
    );
    const refused = memoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'x'], refused.io)).toBe(2);
    expect(refused.err()).toContain(
      "agent.yaml:3:1 contxts: unknown field 'contxts' (did you mean 'contexts'?)",
    );
    expect(refused.err()).toContain(
      'agent.yaml:7:32 contexts[0].config.policy: unknown workspace policy "sometimes"',
    );
    expect(refused.out()).toBe('');
    // What validate only warns about (a missing skills folder) warns here too, on stderr.
    await writeFile(
      join(dir, 'agent.yaml'),
      `name: w\n${model}\ncontexts:\n  - kind: skills\n    name: gone\n`,
    );
    const expected = `warning: agent.yaml:4:5 contexts[0]: ${join(dir, 'skills/gone')}: the skills folder does not exist; the skills provider is skipped\n`;
    const human = memoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'x'], human.io)).toBe(0);
    expect(human.out()).toBe('ran\n');
    expect(human.err()).toBe(expected);
    // With --json too: on stderr, so stdout stays the NDJSON of SPEC §11.1.
    const json = memoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'x', '--json'], json.io)).toBe(0);
    expect(json.err()).toBe(expected);
    expect(json.lines().at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('exits 2, not 4, for a session id it refuses and for a corrupt session file', async () => {
    const file = await agent('http://127.0.0.1:9/v1');
    const bad = memoryIO({ cwd: dir });
    expect(await main(['run', file, '-i', 'x', '--session', '../../etc'], bad.io)).toBe(2);
    expect(bad.err()).toBe(
      'raf: session id "../../etc" is not allowed: use letters, digits and . _ - : @ (at most 200)\n',
    );
    await mkdir(join(dir, '.raf/sessions'), { recursive: true });
    await writeFile(join(dir, '.raf/sessions/broken.json'), '{not json');
    const corrupt = memoryIO({ cwd: dir });
    expect(await main(['run', file, '-i', 'x', '--session', 'broken'], corrupt.io)).toBe(2);
    expect(corrupt.err()).toMatch(/^raf: session file .*broken\.json is corrupt/);
  });

  it('reads the input from stdin, and refuses bad usage with exit 2', async () => {
    server = await startMockModelServer({ turns: [{ text: 'piped ok' }] });
    const piped = memoryIO({ cwd: dir, stdin: ['from a pipe\n'] });
    expect(await main(['run', await agent(server.baseURL)], piped.io)).toBe(0);
    expect(piped.out()).toBe('piped ok\n');
    const body = (server.requests[0]?.body ?? { messages: [] }) as { messages: { content: string }[] };
    expect(body.messages.at(-1)?.content).toBe('from a pipe');
    const usage = memoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '--approve', 'maybe'], usage.io)).toBe(2);
    expect(await main(['frobnicate'], usage.io)).toBe(2);
    expect(usage.err()).toContain('raf: --approve must be ask, all or none');
    const flag = memoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '--bogus'], flag.io)).toBe(2);
    expect(flag.err()).toMatch(
      /^raf: unknown option --bogus \(raf --help lists them; an input that starts with '-' goes in --input=TEXT or on stdin\)\n/,
    );
  });
});

describe('extra arguments', () => {
  it('refuses an argument a command does not take, instead of dropping it (exit 2)', async () => {
    const file = await agent('http://127.0.0.1:9/v1');
    for (const [argv, message] of [
      [
        ['run', file, 'hello'],
        'raf: raf run: unexpected argument "hello" (the input goes in -i "…" or on stdin)\n',
      ],
      [['inspect', file, 'other.yaml'], 'raf: raf inspect: unexpected argument "other.yaml"\n'],
      [['schema', 'x'], 'raf: raf schema: unexpected argument "x"\n'],
    ] as const) {
      const run = memoryIO({ cwd: dir, stdin: ['piped input\n'] });
      expect(await main(argv, run.io), argv.join(' ')).toBe(2);
      expect(run.err()).toBe(message);
      expect(run.out()).toBe('');
    }
  });
});

describe('raf chat', () => {
  it('streams answers, shows tool lines, asks approvals with a diff, and keeps the session', async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'write_file', arguments: { path: '../outside.txt', content: 'new\n' } },
          ],
        },
        { text: 'Written.' },
        { text: 'Bye.' },
      ],
    });
    const file = await agent(server.baseURL);
    const chat = memoryIO({ cwd: dir, stdin: ['write it\n', 'y\n', 'thanks\n', '/exit\n'] });
    expect(await main(['chat', file, '--session', 'c1'], chat.io)).toBe(0);
    expect(chat.out()).toContain('Written.');
    expect(chat.out()).toContain('Bye.');
    expect(chat.err()).toContain(
      `approve write_file?\n  target: ${join(dir, '..', 'outside.txt').replace(/\/[^/]+\/\.\.\//, '/')}`,
    );
    expect(chat.err()).toContain('+new');
    expect(chat.err()).toMatch(/→ write_file .* ✓ 4 bytes written/);
    expect(await readFile(join(dir, '..', 'outside.txt'), 'utf8')).toBe('new\n');
    await rm(join(dir, '..', 'outside.txt'));
    expect(await readdir(join(dir, '.raf/sessions'))).toEqual(['c1.json']);
  });
});

describe('model overrides and cancelling a chat turn', () => {
  it('--base-url and RAF_MODEL point a file at another server and model', async () => {
    server = await startMockModelServer({ turns: [{ text: 'from the override' }] });
    await writeFile(join(dir, 'openai.yaml'), 'name: o\nmodel: { id: gpt-4o-mini, provider: openai }\n');
    const run = memoryIO({ cwd: dir, env: { RAF_MODEL: 'local-model', OPENAI_API_KEY: 'sk-test' } });
    expect(await main(['run', 'openai.yaml', '-i', 'x', '--base-url', server.baseURL], run.io)).toBe(0);
    expect(run.out()).toBe('from the override\n');
    expect(server.requests[0]?.body).toMatchObject({ model: 'local-model' });
  });

  it('a hosted provider without its API key exits 2 (configuration), naming the variable, and sends nothing', async () => {
    await writeFile(join(dir, 'nokey.yaml'), 'name: o\nmodel: { id: gpt-4o-mini, provider: openai }\n');
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const run = memoryIO({ cwd: dir, env: {} });
      expect(await main(['run', 'nokey.yaml', '-i', 'x'], run.io)).toBe(2);
      expect(run.err()).toMatch(
        /provider "openai" has no API key for https:\/\/api\.openai\.com\/v1: set OPENAI_API_KEY/,
      );
      const json = memoryIO({ cwd: dir, env: {} });
      expect(await main(['run', 'nokey.yaml', '-i', 'x', '--json'], json.io)).toBe(2);
      expect(json.lines()[0]).toMatchObject({ type: 'error', code: 'RAF_CONFIG' });
      expect(json.lines().at(-1)).toMatchObject({ type: 'finish' });
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it('Ctrl-C cancels the running chat turn, not the session', async () => {
    server = await startMockModelServer({
      turns: [{ text: 'too slow', delayMs: 5000 }, { text: 'still here' }],
    });
    const file = await agent(server.baseURL);
    const chat = memoryIO({ cwd: dir, stdin: ['first\n', 'second\n', '/exit\n'] });
    const running = main(['chat', file], chat.io);
    setTimeout(() => chat.interrupt(), 300);
    expect(await running).toBe(0);
    expect(chat.err()).toContain('(turn cancelled)');
    expect(chat.out()).toContain('still here');
  });
});

describe('as a real process', () => {
  const built = join(repo, 'packages/cli/dist/bin.js');
  // The binary is a bundle; its lazily loaded libraries must still resolve (CI builds first).
  it.runIf(existsSync(built))("the built binary loads the file tools' libraries on demand", async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'run_command', arguments: { command: 'echo hi' } },
            { id: 'c2', name: 'find_files', arguments: { pattern: '**/*.txt' } },
            {
              id: 'c3',
              name: 'search_file',
              arguments: { pattern: 'hello', directory: '.', include: '*.txt' },
            },
          ],
        },
        { text: 'done' },
      ],
    });
    const yaml = `name: b\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ncontexts:\n  - kind: workspace\n    name: w\n    config: { root: ./ws, policy: approve, allowCommands: [echo] }\ntools:\n  - kind: file\n`;
    // The root in a folder of its own: a command run in a folder holding the agent file asks.
    await writeFile(join(dir, 'agent.yaml'), yaml);
    await mkdir(join(dir, 'ws'), { recursive: true });
    await writeFile(join(dir, 'ws', 'notes.txt'), 'hello\n');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [built, 'run', 'agent.yaml', '-i', 'x', '--json'],
      { cwd: dir },
    );
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; result?: { ok: boolean } });
    expect(lines.some((l) => l.type === 'tool-approval-request')).toBe(false);
    expect(lines.filter((l) => l.type === 'tool-result').map((l) => l.result?.ok)).toEqual([
      true,
      true,
      true,
    ]);
  });

  // Each module costs a cold start about half a millisecond whatever its size (`scripts/group-chunks.ts`).
  it.runIf(existsSync(built))(
    'the built `raf validate` loads bin.js and one chunk of its own, not the agent loop; the packages load from their builds',
    async () => {
      const hooks = `export async function load(url, context, next) {
      if (url.startsWith('file:')) process.stderr.write('loaded ' + url + '\\n');
      return next(url, context);
    }`;
      const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ['--import', `data:text/javascript,${encodeURIComponent(register)}`, built, 'validate', 'agent.yaml'],
        { cwd: join(repo, 'examples/quickstart') },
      );
      expect(stdout).toBe('ok: agent.yaml\n');
      const loaded = [...stderr.matchAll(/^loaded file:\/\/.*\/packages\/cli\/dist\/(.+)$/gm)].map(
        (m) => m[1],
      );
      // No code is both bundled and installed: decl runs from its own build, not from bin.js.
      expect(stderr).toMatch(/^loaded file:\/\/.*\/packages\/decl\/dist\/index\.js$/m);
      expect(loaded).toHaveLength(2);
      expect(loaded[0]).toBe('bin.js');
      expect(loaded[1]).toMatch(/^core-.+\.js$/);
      // The agent loop (here one of its messages) is not in it: building an agent loads it.
      const core = await readFile(join(repo, 'packages/cli/dist', loaded[1] as string), 'utf8');
      expect(core).not.toContain('a resumed run takes no new input');
    },
  );

  // `@raf/studio` finds its app next to its own module: bundled into bin.js it looked in cli's dist.
  it.runIf(existsSync(built) && existsSync(join(repo, 'packages/studio/dist/app/index.html')))(
    'the built `raf studio` serves the app',
    async () => {
      const studio = spawn(process.execPath, [built, 'studio', 'agent.yaml', '--port', '0'], {
        cwd: join(repo, 'examples/quickstart'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = '';
          studio.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            const found = /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.exec(out);
            if (found) resolve(found[0]);
          });
          studio.once('exit', (code) => reject(new Error(`raf studio exited ${code}: ${out}`)));
        });
        const response = await fetch(url);
        expect(response.status).toBe(200);
        expect(await response.text()).toContain('<title>RAF Studio</title>');
      } finally {
        studio.kill();
      }
    },
  );

  it('prints errors without a stack trace', async () => {
    const bin = join(repo, 'packages/cli/src/bin.ts');
    const corpus = join(repo, 'packages/decl/test-fixtures/broken');
    for (const file of [
      '01-yaml-tab-indent.yaml',
      '10-yaml-bad-alias.yaml',
      '24-kind-unknown.yaml',
      'missing.yaml',
    ]) {
      const result = await promisify(execFile)(
        process.execPath,
        ['--conditions=@raf/source', '--import', 'tsx', bin, 'validate', file],
        { cwd: corpus },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(result.code, file).toBe(2);
      expect(result.stderr, file).toMatch(/^error: /);
      expect(result.stderr, file).not.toMatch(/\n\s+at /);
    }
  }, 30_000);
});
