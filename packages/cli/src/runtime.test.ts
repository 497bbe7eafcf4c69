import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import type { RuntimeDiagnostic } from '@raf/framework';
import { RUNTIME_LABELS } from '@raf/framework';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const fixtures = join(here, '../test-fixtures/runtime');
const bin = join(here, 'bin.ts');
// From source in another folder: tsx by its resolved URL.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
// The built binary when there is one (CI builds first: no tsx transpiling the CLI in every process), else the source.
const built = join(dirname(bin), '../dist/bin.js');
const RAF_PROCESS = existsSync(built) ? [built] : ['--conditions=@raf/source', '--import', tsx, bin];

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-runtime-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function raf(args: string[], cwd = dir) {
  const run = createMemoryIO({ cwd });
  const code = await main(args, run.io);
  return { code, out: run.out(), err: run.err() };
}

type Inspected = { tools: { name: string; route: string }[]; runtime: RuntimeDiagnostic };

describe('raf inspect: the runtime diagnostic', () => {
  it('shows each of the six blocked reasons, with both labels, from the fixtures', async () => {
    const reasons = new Map<string, unknown>();
    for (const file of ['no-workspace.yaml', 'reasons.yaml']) {
      const { code, out, err } = await raf(['inspect', file, '--json'], fixtures);
      expect(code, err).toBe(0);
      const plan = JSON.parse(out) as Inspected;
      // Every route of the plan is the diagnostic's; nothing else derives one.
      for (const tool of plan.tools)
        expect(tool.route).toBe(plan.runtime.tools.find((t) => t.name === tool.name)?.runtime.route);
      for (const agent of [plan.runtime, ...plan.runtime.subAgents])
        for (const tool of agent.tools)
          if (tool.runtime.blockedReason) reasons.set(tool.runtime.blockedReason, tool.runtime.label);
    }
    expect(Object.fromEntries(reasons)).toEqual(RUNTIME_LABELS.reasons);
  });

  it('prints the runtime table in either language', async () => {
    const en = await raf(['inspect', 'reasons.yaml'], fixtures);
    expect(en.out).toContain('runtime (a worker this session):');
    expect(en.out).toMatch(/helper: worker roots .*, shell not allowed, read-only/);
    expect(en.out).toMatch(
      / {6}run_command \(bash\) +disabled +shell commands are disabled by the worker policy/,
    );
    const zh = await raf(['inspect', 'reasons.yaml', '--lang', 'zh-CN'], fixtures);
    expect(zh.out).toMatch(/ {6}run_command \(bash\) +禁用 +bash 等 shell 工具被策略禁用/);
    expect(zh.out).toMatch(/ {6}load_skill \(read_skill\) +主进程代理 +工具需要主进程代理/);
    expect((await raf(['inspect', 'reasons.yaml', '--lang', 'fr'], fixtures)).code).toBe(2);
  });
});

describe('raf tools', () => {
  it('edits the project governance; the next inspect (and run) reads it', async () => {
    await writeFile(
      join(dir, 'agent.yaml'),
      'name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }\ncontexts:\n  - { kind: workspace, name: w, config: { root: . } }\ntools:\n  - kind: file\n',
    );
    expect((await raf(['tools', 'disable', 'grep', 'bash'])).out).toBe(
      `disabled search_file, run_command (${join(dir, '.raf/governance.json')})\n`,
    );
    expect((await raf(['tools', 'route', 'read_file', 'force-main-process-proxy'])).code).toBe(0);
    expect((await raf(['tools', 'hint', 'read_file', 'Read', 'small', 'ranges.'])).code).toBe(0);
    const core = await raf(['tools', 'disable', 'load_skill']);
    expect(core).toMatchObject({ code: 2, err: 'raf: load_skill is a core tool and cannot be disabled\n' });
    expect((await raf(['tools', 'route', 'read_file', 'sideways'])).code).toBe(2);
    const listed = JSON.parse((await raf(['tools', 'list', '--json'])).out) as {
      tools: { name: string; enabled: boolean; workerRoutingStrategy: string; promptHint: string | null }[];
    };
    expect(listed.tools.find((t) => t.name === 'read_file')).toMatchObject({
      enabled: true,
      workerRoutingStrategy: 'force-main-process-proxy',
      promptHint: 'Read small ranges.',
    });
    expect(listed.tools.find((t) => t.name === 'search_file')?.enabled).toBe(false);
    // The installed extensions' tools, with the manifests the extensions keep themselves.
    const profiles = JSON.parse((await raf(['tools', 'list', '--json'])).out) as {
      tools: { name: string; kind: string; profile: string | null }[];
    };
    for (const name of ['web_search', 'web_fetch', 'code_interpreter'])
      expect(profiles.tools.find((t) => t.name === name)).toMatchObject({ kind: 'builtin' });
    expect(profiles.tools.find((t) => t.name === 'web_fetch')?.profile).toBe('worker-local');
    const plan = JSON.parse((await raf(['inspect', 'agent.yaml', '--json'])).out) as Inspected;
    expect(plan.tools.find((t) => t.name === 'search_file')?.route).toBe('disabled');
    expect(plan.runtime.tools.find((t) => t.name === 'read_file')).toMatchObject({
      governance: { promptHint: 'Read small ranges.', workerRoutingStrategy: 'force-main-process-proxy' },
      runtime: { route: 'main-process-proxy' },
    });
    // Another file, named on the command line.
    expect((await raf(['tools', 'enable', 'grep', '--governance', 'other.json'])).code).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'other.json'), 'utf8'))).toEqual({
      version: 1,
      tools: { search_file: { enabled: true } },
    });
  });
});

describe('approvals inside a sub-agent, across CLI processes', () => {
  it('pauses at the root (exit 3); a new process approves; the sub-agent write lands and the root finishes', async () => {
    const scripts: Record<string, object[]> = {
      lead: [
        {
          toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { agent: 'writer', task: 'share it' } }],
        },
        { text: 'The writer shared it.' },
      ],
      writer: [
        {
          toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: '../shared.txt', content: 'hi' } }],
        },
        { text: 'Shared.' },
      ],
    };
    server = await startMockModelServer({
      turns: (request) => scripts[String(request.body?.model)]?.shift() ?? { text: '(none)' },
    });
    const model = (id: string) =>
      `{ id: ${id}, provider: custom, connection: { endpoint: "${server?.baseURL}" } }`;
    await mkdir(join(dir, 'project'));
    await writeFile(
      join(dir, 'project', 'agent.yaml'),
      `name: lead\nmodel: ${model('lead')}\ncontexts:\n  - { kind: workspace, name: p, config: { root: ., policy: approve } }\nsubAgents:\n  - name: writer\n    model: ${model('writer')}\n    tools: [{ kind: file, name: write_file }]\n`,
    );
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, [...RAF_PROCESS, ...args], {
        cwd: join(dir, 'project'),
        timeout: 60_000,
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const lines = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    const first = await cli(['run', 'agent.yaml', '-i', 'share', '--session', 's1', '--json']);
    expect(first.code, first.stderr).toBe(3);
    expect(lines(first.stdout).find((l) => l.type === 'tool-approval-request')).toEqual({
      type: 'tool-approval-request',
      callId: 'd1/w1',
      name: 'write_file',
      arguments: { path: '../shared.txt', content: 'hi' },
      description: expect.any(String),
      resolvedTarget: join(dir, 'shared.txt'),
      agentPath: ['writer'],
    });
    expect(existsSync(join(dir, 'shared.txt'))).toBe(false);
    const second = await cli(['run', 'agent.yaml', '--session', 's1', '--approve', 'all', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      `✓ approved (--approve all): writer: write_file ${join(dir, 'shared.txt')}`,
    );
    expect(lines(second.stdout).at(-1)).toMatchObject({ type: 'finish', reason: 'stop', sessionId: 's1' });
    expect(lines(second.stdout).find((l) => l.type === 'tool-result')).toMatchObject({
      callId: 'd1',
      result: { ok: true, data: { agent: 'writer', answer: 'Shared.' } },
    });
    expect(await readFile(join(dir, 'shared.txt'), 'utf8')).toBe('hi');
  }, 120_000);
});
