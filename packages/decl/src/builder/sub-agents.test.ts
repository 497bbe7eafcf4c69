import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import type { AgentResponseUpdate } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../diagnostics/diagnostic.js';
import { DeclAgentBuilder } from './decl-agent-builder.js';

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-decl-subs-')));
  await mkdir(join(dir, 'project', 'docs'), { recursive: true });
  await writeFile(join(dir, 'project', 'docs', 'notes.md'), 'alpha\nbeta\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const model = (id: string) =>
  `{ id: ${id}, provider: custom, connection: { endpoint: "${server?.baseURL ?? 'http://127.0.0.1:9/v1'}" } }`;

function coordinatorYaml(extra = ''): string {
  return `name: coordinator
model: ${model('coordinator')}
instructions: Delegate.
contexts:
  - kind: workspace
    name: project
    config: { root: ./project, policy: approve }
tools:
  - kind: file
    name: read_file
subAgents:
  - name: researcher
    description: reads the docs
    model: ${model('researcher')}
    tools:
      - { kind: file, name: read_file }
      - { kind: file, name: grep }
  - name: writer
    description: writes files
    model: ${model('writer')}
    tools:
      - { kind: file, name: write_file }
${extra}`;
}

async function scripted(scripts: Record<string, object[]>) {
  const queues = Object.fromEntries(Object.entries(scripts).map(([k, v]) => [k, [...v]]));
  server = await startMockModelServer({
    turns: (request) => queues[String(request.body?.model)]?.shift() ?? { text: 'nothing scripted' },
  });
}

const toolNames = (body: Record<string, unknown> | undefined) =>
  ((body?.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

describe('subAgents from YAML', () => {
  it('the coordinator delegates to a read-only researcher and a writer, each in its own worker process', async () => {
    await scripted({
      coordinator: [
        {
          toolCalls: [
            { id: 'd1', name: 'delegate_task', arguments: { agent: 'researcher', task: 'count notes' } },
          ],
        },
        {
          toolCalls: [
            { id: 'd2', name: 'delegate_task', arguments: { agent: 'writer', task: 'write count.md' } },
          ],
        },
        { text: 'Both done.' },
      ],
      researcher: [
        { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'docs/notes.md' } }] },
        { text: 'There are 2 notes.' },
      ],
      writer: [
        {
          toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'count.md', content: '2 notes' } }],
        },
        { text: 'Wrote count.md.' },
      ],
    });
    const file = join(dir, 'agent.yaml');
    await writeFile(file, coordinatorYaml());
    const agent = await new DeclAgentBuilder().fromFile(file).build();
    const updates: AgentResponseUpdate[] = [];
    for await (const u of agent.run('go')) updates.push(u);
    expect(
      updates.filter((u) => u.type === 'tool-called').map((u) => u.type === 'tool-called' && u.result),
    ).toEqual([
      { ok: true, data: { agent: 'researcher', answer: 'There are 2 notes.' } },
      { ok: true, data: { agent: 'writer', answer: 'Wrote count.md.' } },
    ]);
    expect(await readFile(join(dir, 'project', 'count.md'), 'utf8')).toBe('2 notes');
    const bodies = (id: string) => server!.requests.filter((r) => r.body?.model === id).map((r) => r.body);
    // Each gets its own selection (`grep` is `search_file`); the writer's write ran in the parent.
    expect(toolNames(bodies('researcher')[0])).toEqual(['read_file', 'search_file']);
    expect(toolNames(bodies('writer')[0])).toEqual(['write_file']);
    expect(toolNames(bodies('coordinator')[0])).toEqual(['read_file', 'delegate_task', 'delegate_parallel']);
  }, 60_000);

  it('reports a child workspace wider or looser than the parent, and an unknown orchestration, at their places', async () => {
    const yaml = `name: c
model: ${model('c')}
metadata: { orchestration: { mode: tournament } }
contexts:
  - kind: workspace
    name: project
    config: { root: ./project, policy: approve }
subAgents:
  - name: wide
    model: ${model('w')}
    contexts:
      - kind: workspace
        name: other
        config: { root: ., policy: deny }
  - name: loose
    model: ${model('l')}
    contexts:
      - kind: workspace
        name: project
        config: { root: ./project/docs, policy: allow }
`;
    await writeFile(join(dir, 'agent.yaml'), yaml);
    const report = await new DeclAgentBuilder().fromFile(join(dir, 'agent.yaml')).validate();
    expect(report.errors.map(formatDiagnostic).map((m) => m.replace(`${dir}/`, ''))).toEqual([
      expect.stringMatching(/^agent\.yaml:3:28 metadata\.orchestration: unknown orchestration "tournament"/),
      expect.stringMatching(
        /^agent\.yaml:14:25 subAgents\[0\]\.contexts\[0\]\.config\.root: .* is outside the parent's workspace roots/,
      ),
      "agent.yaml:20:49 subAgents[1].contexts[0].config.policy: policy allow is looser than the parent workspace 'project' (approve); a sub-agent's policy must be at least as strict (allow < approve < deny)",
    ]);
  });

  it("reports a child workspace whose allowlist, network, readable paths or env are wider than its parent's", async () => {
    await mkdir(join(dir, 'shared'), { recursive: true });
    const yaml = `name: c
model: ${model('c')}
contexts:
  - kind: workspace
    name: project
    config: { root: ./project, policy: approve, allowCommands: [ls, git status], env: { LANG: C } }
  - kind: workspace
    name: jail
    config: { root: ./shared, policy: deny, readableOutside: [/usr/share] }
subAgents:
  - name: narrower
    model: ${model('n')}
    contexts:
      - kind: workspace
        name: project
        config: { root: ./project/docs, policy: approve, allowCommands: [ls -l, git status -s], env: { LANG: C } }
      - kind: workspace
        name: jail
        config: { root: ./shared, policy: deny, readableOutside: [/usr/share/doc] }
  - name: wider
    model: ${model('w')}
    contexts:
      - kind: workspace
        name: project
        config: { root: ./project, policy: approve, allowed_commands: [ls, touch, git], env: { PATH: ./bin } }
      - kind: workspace
        name: jail
        config: { root: ./shared, policy: deny, network: true, readable_outside: [/etc, /usr/share/doc] }
`;
    await writeFile(join(dir, 'agent.yaml'), yaml);
    const report = await new DeclAgentBuilder().fromFile(join(dir, 'agent.yaml')).validate();
    expect(report.errors.map(formatDiagnostic).map((m) => m.replace(`${dir}/`, ''))).toEqual([
      "agent.yaml:25:71 subAgents[1].contexts[0].config.allowed_commands: allowCommands 'touch', 'git' are not covered by the allowCommands of the parent workspace 'project' (ls, git status); a sub-agent never runs unasked a command its parent would ask for",
      "agent.yaml:25:94 subAgents[1].contexts[0].config.env: env sets PATH, which the parent workspace 'project' does not set to the same value; a sub-agent's commands get no environment its parent's would not (a PATH of its own makes an allowed command run other code)",
      "agent.yaml:28:58 subAgents[1].contexts[1].config.network: network: true, but the parent workspace 'jail' has no network; a sub-agent's commands never reach further than its parent's",
      `agent.yaml:28:82 subAgents[1].contexts[1].config.readable_outside: readableOutside /etc is not readable by the parent workspace 'jail' (its roots and readableOutside: /usr/share, ${dir}/shared); a sub-agent never reads further than its parent`,
    ]);
  });

  it('holds the sub-agents of a graph orchestration (sequential) to the same workspace rules', async () => {
    const yaml = `name: c
model: ${model('c')}
metadata: { orchestration: { mode: sequential } }
contexts:
  - kind: workspace
    name: project
    config: { root: ./project, policy: approve, allowCommands: [ls] }
  - { kind: compression, name: sliding_window }
subAgents:
  - name: inherits
    model: ${model('i')}
  - name: everywhere
    model: ${model('e')}
    contexts:
      - kind: workspace
        name: project
        config: { root: /, policy: allow }
  - name: loose
    model: ${model('l')}
    contexts:
      - { kind: compression, name: sliding_window }
      - kind: workspace
        name: project
        config: { root: ./project/docs, policy: allow, allowCommands: [touch] }
`;
    await writeFile(join(dir, 'agent.yaml'), yaml);
    const report = await new DeclAgentBuilder().fromFile(join(dir, 'agent.yaml')).validate();
    expect(report.errors.map(formatDiagnostic).map((m) => m.replace(`${dir}/`, ''))).toEqual([
      expect.stringMatching(
        /^agent\.yaml:17:25 subAgents\[1\]\.contexts\[0\]\.config\.root: \/ is outside the parent's workspace roots/,
      ),
      "agent.yaml:24:49 subAgents[2].contexts[1].config.policy: policy allow is looser than the parent workspace 'project' (approve); a sub-agent's policy must be at least as strict (allow < approve < deny)",
      "agent.yaml:24:71 subAgents[2].contexts[1].config.allowCommands: allowCommands 'touch' is not covered by the allowCommands of the parent workspace 'project' (ls); a sub-agent never runs unasked a command its parent would ask for",
    ]);
  });

  it('inspect: the runtime diagnostic of each sub-agent, and every tool route taken from it', async () => {
    await writeFile(
      join(dir, 'agent.yaml'),
      coordinatorYaml(
        'toolPolicy:\n  disabled: [bash]\n  promptHints: { read_file: Prefer small ranges. }\n',
      ),
    );
    const plan = await new DeclAgentBuilder().fromFile(join(dir, 'agent.yaml')).explain();
    expect(plan.orchestration).toEqual({
      mode: 'magentic',
      maxIterations: 15,
      subAgents: [
        { name: 'researcher', runtime: 'worker', toolPolicy: null },
        { name: 'writer', runtime: 'worker', toolPolicy: null },
      ],
    });
    // The parent's policy as written; the sub-agents inherit it without writing one.
    expect(plan.toolPolicy).toEqual({
      disabled: ['bash'],
      promptHints: { read_file: 'Prefer small ranges.' },
    });
    for (const tool of plan.tools) {
      expect(tool.route).toBe(plan.runtime.tools.find((t) => t.name === tool.name)?.runtime.route);
    }
    const [researcher, writer] = plan.runtime.subAgents;
    expect(researcher?.workerPolicy).toEqual({
      workspaceRoots: [join(dir, 'project')],
      allowShell: false,
      readonly: true,
    });
    expect(researcher?.tools.map((t) => [t.name, t.runtime.state])).toEqual([
      ['read_file', 'worker-local'],
      ['search_file', 'worker-local'],
      ['delegate_task', 'not-selected'],
      ['delegate_parallel', 'not-selected'],
    ]);
    expect(writer?.workerPolicy?.readonly).toBe(false);
    expect(writer?.tools[0]).toMatchObject({
      name: 'write_file',
      runtime: { state: 'main-process-proxied', blockedReason: 'requires_main_process_proxy' },
    });
    expect(plan.runtime.tools.find((t) => t.name === 'read_file')?.governance.promptHint).toBe(
      'Prefer small ranges.',
    );
  });
});
