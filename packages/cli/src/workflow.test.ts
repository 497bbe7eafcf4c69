import { execFile } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
// Always the source (a stale dist would not know workflows): through tsx, as a user's process.
const raf = [
  '--conditions=@raf/source',
  '--import',
  import.meta.resolve('tsx'),
  join(repo, 'packages/cli/src/bin.ts'),
];

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-wf-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const GREETING = `kind: workflow
name: greeting-workflow
trigger:
  kind: OnConversationStart
  actions:
    - kind: SetVariable
      variable: Local.userName
      value: =System.LastMessage.Text
    - kind: SendActivity
      activity:
        text: =Concat("Hello, ", Local.userName, "!")
`;

const QUESTION = `kind: workflow
name: age-check
trigger:
  actions:
    - kind: Question
      question: { text: '=Concat("Hi ", System.LastMessage.Text, ", how old are you?")' }
      variable: Local.age
    - kind: If
      condition: =Local.age >= 18
      then:
        - kind: SendActivity
          activity: { text: adult }
      else:
        - kind: SendActivity
          activity: { text: minor }
`;

function child(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...raf, ...args],
      { cwd: dir, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('raf run / inspect / validate on workflow files', () => {
  it('runs a workflow, streaming node events (and workflow-event lines with --json)', async () => {
    await writeFile(join(dir, 'wf.yaml'), GREETING);
    const human = memoryIO({ cwd: dir });
    expect(await main(['run', 'wf.yaml', '-i', 'Alice'], human.io)).toBe(0);
    expect(human.out().trim()).toBe('Hello, Alice!');
    expect(human.err()).toContain('▸ SetVariable_1 (SetVariable)');
    const json = memoryIO({ cwd: dir });
    expect(await main(['run', 'wf.yaml', '-i', 'Bob', '--json'], json.io)).toBe(0);
    const lines = json
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; event?: { type: string } });
    expect(lines.filter((l) => l.type === 'workflow-event').map((l) => l.event?.type)).toContain(
      'node-completed',
    );
    expect(lines.filter((l) => l.type === 'text-delta')).toEqual([
      { type: 'text-delta', delta: 'Hello, Bob!' },
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('inspect draws the compiled graph as text and as Mermaid; validate names the mode', async () => {
    await writeFile(join(dir, 'q.yaml'), QUESTION);
    const text = memoryIO({ cwd: dir });
    expect(await main(['inspect', 'q.yaml'], text.io)).toBe(0);
    expect(text.out()).toContain('workflow age-check');
    expect(text.out()).toContain('  Question_1 (human-input, Question)\n    → If_2');
    const mermaid = memoryIO({ cwd: dir });
    expect(await main(['inspect', 'q.yaml', '--mermaid'], mermaid.io)).toBe(0);
    expect(mermaid.out()).toMatch(/^flowchart TD\n/);
    expect(mermaid.out()).toContain('Question_1[/"Question_1: Question"/]');
    const validate = memoryIO({ cwd: dir });
    expect(await main(['validate', 'q.yaml'], validate.io)).toBe(0);
    expect(validate.out()).toContain('q.yaml: workflow(2 actions, 5 nodes)');
  });

  it('a question pauses with exit 3 and another process resumes it with --answer', async () => {
    await writeFile(join(dir, 'q.yaml'), QUESTION);
    const first = await child(['run', 'q.yaml', '--session', 's1', '-i', 'Bo']);
    expect(first.code).toBe(3);
    expect(first.stderr).toContain('⏸ Question_1 asks: Hi Bo, how old are you?');
    expect(first.stderr).toContain('resume with: raf run q.yaml --session s1 --answer');
    const again = await child(['run', 'q.yaml', '--session', 's1']);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('waiting for input (Hi Bo, how old are you?)');
    const second = await child(['run', 'q.yaml', '--session', 's1', '--answer', '42']);
    expect(second.stderr).toContain('▶ resumed at step 2');
    expect(second.stdout.trim()).toBe('adult');
    expect(second.code).toBe(0);
  }, 60_000);

  it('--approve all in an orchestration says so on stderr and prints one finish, last', async () => {
    const server = await startMockModelServer({
      turns: [
        { toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command: 'echo hi' } }] },
        { text: 'done' },
      ],
    });
    try {
      await writeFile(
        join(dir, 'team.yaml'),
        `name: team\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\nmetadata: { orchestration: sequential }\nsubAgents:\n  - name: doer\n    model: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\n    contexts: [{ kind: workspace, name: w, config: { root: ., policy: approve } }]\n    tools: [{ kind: shell }]\n`,
      );
      const run = memoryIO({ cwd: dir });
      expect(await main(['run', 'team.yaml', '-i', 'go', '--json', '--approve', 'all'], run.io)).toBe(0);
      const types = run
        .lines()
        .map((l) => l.type)
        .filter((t) => t !== 'workflow-event');
      expect(types).toEqual(['tool-call', 'tool-approval-request', 'tool-result', 'text-delta', 'finish']);
      expect(run.err()).toContain(`✓ approved (--approve all): run_command ${dir}$ echo hi`);
    } finally {
      await server.close();
    }
  });

  it('an orchestration whose sub-agent has no API key exits 2 (configuration), as an agent does', async () => {
    await writeFile(
      join(dir, 'nokey.yaml'),
      'name: team\nmodel: { id: m, provider: openai }\nmetadata: { orchestration: sequential }\nsubAgents:\n  - name: doer\n    model: { id: m, provider: openai }\n',
    );
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const run = memoryIO({ cwd: dir, env: {} });
      expect(await main(['run', 'nokey.yaml', '-i', 'go', '--json'], run.io)).toBe(2);
      // The sub-agent's own error first, then the workflow's (naming the agent that failed).
      expect(run.lines().filter((l) => l.type === 'error')[0]).toMatchObject({
        code: 'RAF_CONFIG',
        message: expect.stringMatching(/OPENAI_API_KEY/),
      });
      expect(run.lines().at(-1)).toMatchObject({ type: 'finish' });
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});
