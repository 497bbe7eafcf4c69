import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
/** The CLI as a user's process: the source through tsx (`import.meta.resolve`: any working folder). */
const RAF = [
  '--conditions=@raf/source',
  '--import',
  import.meta.resolve('tsx'),
  join(repo, 'packages/cli/src/bin.ts'),
];
/** The built CLI when there is one (CI builds first): the same code, without transpiling it per process. */
const built = join(repo, 'packages/cli/dist/bin.js');
const RAF_PROCESS = existsSync(built) ? [built] : RAF;

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-bad-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[], stdin: string[] = []) {
  const run = createMemoryIO({ cwd: dir, stdin });
  const code = await main(argv, run.io);
  return { code, out: run.out(), err: run.err() };
}

/** Every command that reads an agent file, as `[before the file, after it]`. */
const FILE_COMMANDS: [string[], string[]][] = [
  [['run'], ['-i', 'x']],
  [['chat'], []],
  [['validate'], []],
  [['inspect'], []],
  [['index'], []],
  [['studio'], []],
  [['memory', 'consolidate'], []],
  [['mcp', 'serve'], []],
];

async function agentFile(endpoint: string, name = 'agent.yaml'): Promise<string> {
  const yaml = `name: t\nmodel: { id: m, provider: custom, connection: { endpoint: "${endpoint}" } }\ncontexts:\n  - kind: workspace\n    name: w\n    config: { root: ., policy: approve }\ntools:\n  - kind: file\n`;
  await writeFile(join(dir, name), yaml);
  return name;
}

describe('an agent file that cannot be read is named as typed, one line, exit 2, by every command', () => {
  it('missing, a folder, empty, a folder on its path that is a file, a loop of links, a name too long', async () => {
    await mkdir(join(dir, 'sub/folder.yaml'), { recursive: true });
    await writeFile(join(dir, 'sub/empty.yaml'), '');
    await writeFile(join(dir, 'sub/file.yaml'), 'name: x\n');
    await symlink('loop-b.yaml', join(dir, 'sub/loop-a.yaml'));
    await symlink('loop-a.yaml', join(dir, 'sub/loop-b.yaml'));
    const long = `sub/${'a'.repeat(300)}.yaml`;
    const cases: [string, string][] = [
      ['sub/missing.yaml', 'no such file'],
      ['sub/folder.yaml', 'is a folder, not an agent file'],
      ['sub/empty.yaml', 'an agent file must be a mapping (name:, model:, …)'],
      ['sub/file.yaml/agent.yaml', 'no such file (a folder on its path is a file)'],
      ['sub/loop-a.yaml', 'cannot read it: a loop of symbolic links'],
      [long, 'cannot read it: the file name is too long'],
    ];
    for (const [before, after] of FILE_COMMANDS) {
      for (const [file, message] of cases) {
        const { code, out, err } = await cli([...before, file, ...after]);
        expect(err, `${before.join(' ')} ${file}`).toBe(`error: ${file}:1:1 ${message}\n`);
        expect(code).toBe(2);
        expect(out).toBe('');
      }
    }
  });

  // As root, chmod 000 stops nobody: the CLI then runs as `nobody` (setpriv), as a user would.
  const root = process.getuid?.() === 0;
  it.runIf(process.platform !== 'win32')(
    'a file it may not read (as a user without the right)',
    async () => {
      await writeFile(join(dir, 'secret.yaml'), 'name: x\n');
      await chmod(join(dir, 'secret.yaml'), 0o000);
      // The folder itself stays open to everyone: only the file is refused.
      await chmod(dir, 0o755);
      for (const [before, after] of FILE_COMMANDS) {
        const argv = [...before, 'secret.yaml', ...after];
        const { code, stderr } = root
          ? await new Promise<{ code: number | null; stderr: string }>((done) => {
              execFile(
                'setpriv',
                [
                  '--reuid=65534',
                  '--regid=65534',
                  '--clear-groups',
                  process.execPath,
                  ...RAF_PROCESS,
                  ...argv,
                ],
                { cwd: dir, env: { ...process.env, HOME: dir } },
                (error, _out, stderr) => done({ code: error ? (error.code as number) : 0, stderr }),
              );
            })
          : await cli(argv).then((r) => ({ code: r.code, stderr: r.err }));
        expect(stderr, argv.join(' ')).toBe('error: secret.yaml:1:1 cannot read it: permission denied\n');
        expect(code).toBe(2);
      }
    },
    120_000,
  );

  it('memory check: a folder that is missing, or a file', async () => {
    await writeFile(join(dir, 'notes.md'), 'x\n');
    expect(await cli(['memory', 'check', 'logs/super-brain'])).toEqual({
      code: 2,
      out: '',
      err: 'raf: raf memory check logs/super-brain: no such folder\n',
    });
    expect((await cli(['memory', 'check', 'notes.md'])).err).toBe(
      'raf: raf memory check notes.md: is a file, not a folder\n',
    );
  });

  it('what a command reads when given nothing: raf studio (agent.yaml), raf memory (a command)', async () => {
    expect(await cli(['studio'])).toEqual({
      code: 2,
      out: '',
      err: 'raf: raf studio: no agent.yaml in this folder; name the agent files: raf studio agent.yaml…\n',
    });
    expect((await cli(['memory'])).err).toBe(
      'raf: raf memory needs a command: use "raf memory check DIR" or "raf memory consolidate agent.yaml [--session ID]"\n',
    );
  });
});

describe('raf run refuses input it would drop, before calling the model', () => {
  it('an empty -i, as an empty stdin is', async () => {
    server = await startMockModelServer({ turns: [{ text: 'never' }] });
    const file = await agentFile(server.baseURL);
    for (const argv of [
      ['run', file, '--input='],
      ['run', file, '-i', '  \n'],
    ]) {
      const { code, err } = await cli(argv);
      expect(err, argv.join(' ')).toBe('raf: raf run got no input: -i is empty\n');
      expect(code).toBe(2);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('--answer to an agent answers its questions (SPEC §14.4), so it is not refused; -i is still needed', async () => {
    server = await startMockModelServer({ turns: [{ text: 'never' }] });
    const file = await agentFile(server.baseURL);
    const { code, err } = await cli(['run', file, '--session', 's', '--answer', 'yes']);
    expect(code).toBe(2);
    expect(err).toMatch(/raf run (needs|got no) input/);
    expect(server.requests).toHaveLength(0);
  });

  it('a --sessions-dir that is a file, a --governance that is a folder, a --session id the store refuses', async () => {
    server = await startMockModelServer({ turns: [{ text: 'never' }] });
    const file = await agentFile(server.baseURL);
    await writeFile(join(dir, 'runs'), '');
    expect((await cli(['run', file, '-i', 'x', '--sessions-dir', 'runs'])).err).toBe(
      'raf: --sessions-dir runs: is a file, not a folder\n',
    );
    expect((await cli(['chat', file, '--sessions-dir', 'runs'])).err).toBe(
      'raf: --sessions-dir runs: is a file, not a folder\n',
    );
    expect((await cli(['studio', file, '--sessions-dir', 'runs'])).err).toBe(
      'raf: --sessions-dir runs: is a file, not a folder\n',
    );
    await mkdir(join(dir, 'rules'));
    for (const argv of [
      ['tools', 'list', '--governance', 'rules'],
      ['tools', 'disable', 'grep', '--governance', 'rules'],
      ['studio', file, '--governance', 'rules'],
    ]) {
      expect(await cli(argv), argv.join(' ')).toEqual({
        code: 2,
        out: '',
        err: 'raf: --governance rules: is a folder; give a file name such as .raf/governance.json\n',
      });
    }
    expect((await cli(['run', file, '-i', 'x', '--session', '..'])).err).toMatch(
      /^raf: session id "\.\." is not allowed/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('-i while the session waits for approval: an agent and an orchestration', async () => {
    server = await startMockModelServer({
      turns: [
        { toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command: 'echo hi' } }] },
        { toolCalls: [{ id: 'c2', name: 'run_command', arguments: { command: 'echo hi' } }] },
      ],
    });
    const file = await agentFile(server.baseURL);
    await writeFile(
      join(dir, 'team.yaml'),
      `name: team\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\nmetadata: { orchestration: sequential }\nsubAgents:\n  - name: doer\n    model: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\n    contexts: [{ kind: workspace, name: w, config: { root: ., policy: approve } }]\n    tools: [{ kind: shell }]\n`,
    );
    for (const [agent, session] of [
      [file, 'p1'],
      ['team.yaml', 'p2'],
    ] as const) {
      expect((await cli(['run', agent, '-i', 'run echo', '--session', session])).code, agent).toBe(3);
      const again = await cli(['run', agent, '-i', 'and then?', '--session', session, '--approve', 'all']);
      expect(again.err, agent).toBe(
        `raf: session ${session} is waiting for approval, not for -i: resume with --approve all|none, then send the next input\n`,
      );
      expect(again.code).toBe(2);
    }
    // Only the two first turns reached the model; nothing was approved.
    expect(server.requests).toHaveLength(2);
  });
});

describe('as a real process', () => {
  it('a reader that closes the pipe early ends nothing with a stack trace', async () => {
    // 400 unknown keys: 400 lines on stderr, well past what one pipe buffer holds.
    const keys = Array.from({ length: 400 }, (_, i) => `unknown_key_${i}: ${'x'.repeat(200)}\n`).join('');
    await writeFile(join(dir, 'noisy.yaml'), `name: n\nmodel: { id: m, provider: openai }\n${keys}`);
    const code = await new Promise<number | null>((done) => {
      const child = spawn(process.execPath, [...RAF, 'validate', 'noisy.yaml'], {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      // Like `raf validate noisy.yaml 2>&1 | head -1`: read one chunk, then go away.
      child.stderr.once('data', () => child.stderr.destroy());
      child.on('close', (exit) => done(exit));
    });
    // An unhandled EPIPE would exit 1 (or 7) after printing its stack; the validation's own code is 2.
    expect(code).toBe(2);
  }, 60_000);

  it('the run goes on and saves its session when stdout is closed under it', async () => {
    server = await startMockModelServer({
      // 400 KiB in 200 pieces, well past what one pipe buffer holds.
      turns: [
        { textChunks: Array.from({ length: 200 }, (_, i) => `${i} `.padEnd(2048, '.')), chunkDelayMs: 5 },
      ],
    });
    await agentFile(server.baseURL);
    const result = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [...RAF, 'run', 'agent.yaml', '-i', 'x', '--session', 's1'], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('close', (exit) => done({ code: exit, stderr }));
    });
    expect(result.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(result.code).toBe(0);
    expect(await readdir(join(dir, '.raf/sessions'))).toEqual(['s1.json']);
  }, 60_000);
});

describe('a hostile model: tool arguments nested thousands deep', () => {
  it('are refused to the model, and --json prints them as the text sent (it overflowed the stack, exit 4)', async () => {
    const deep = `{"path":"a.txt","content":"x","offset":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    server = await startMockModelServer({
      turns: [{ toolCalls: [{ id: 'c1', name: 'write_file', arguments: deep }] }, { text: 'done' }],
    });
    const file = await agentFile(server.baseURL);
    const { code, out, err } = await cli(['run', file, '-i', 'go', '--json', '--approve', 'none']);
    expect(err).toBe('');
    expect(code).toBe(0);
    const events = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; arguments?: unknown; result?: unknown });
    expect(events.find((e) => e.type === 'tool-call')?.arguments).toBe(deep);
    expect(events.find((e) => e.type === 'tool-result')?.result).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^Invalid arguments for write_file: the arguments nest deeper than 100 levels\./,
      ),
    });
    expect(existsSync(join(dir, 'a.txt'))).toBe(false);
  });
});
