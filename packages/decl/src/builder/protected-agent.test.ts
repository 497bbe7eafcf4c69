import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import type { AgentResponseUpdate, IContextProvider } from '@raf/core';
import { WorkspaceContextProvider } from '@raf/framework';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corePlugin } from '../registry/core-plugin.js';
import { DeclAgentBuilder } from './decl-agent-builder.js';

// Issue 10 items 10 and 16, and the workspace keys of the security issue, from YAML.

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-decl-protect-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

function agentYaml(endpoint: string, workspace: string): string {
  return `name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "${endpoint}" } }\ncontexts:\n  - kind: workspace\n    name: project\n    config:\n${workspace}tools:\n  - kind: file\n`;
}

async function run(builder: DeclAgentBuilder): Promise<AgentResponseUpdate[]> {
  const agent = await builder.build();
  const updates: AgentResponseUpdate[] = [];
  for await (const update of agent.run('go')) updates.push(update);
  return updates;
}

function results(updates: AgentResponseUpdate[]) {
  return updates.filter((u) => u.type === 'tool-called').map((u) => (u as { result: unknown }).result);
}

describe('the agent definition file is protected (the default root is its folder)', () => {
  it('an approve-policy run can neither read nor rewrite agent.yaml, so the next run keeps its policy', async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'read_file', arguments: { path: 'agent.yaml' } },
            { id: 'c2', name: 'write_file', arguments: { path: 'agent.yaml', content: 'policy: allow\n' } },
            {
              id: 'c3',
              name: 'edit_file',
              arguments: { path: 'agent.yaml', old_str: 'approve', new_str: 'allow' },
            },
          ],
        },
        { text: 'done' },
      ],
    });
    const file = join(dir, 'agent.yaml');
    const yaml = agentYaml(server.baseURL, '      policy: approve\n');
    await writeFile(file, yaml);
    const updates = await run(new DeclAgentBuilder().fromYamlFile(file));
    expect(updates.some((u) => u.type === 'tool-approval-request')).toBe(false);
    expect(results(updates)).toEqual([
      { ok: false, error: "Protected path: 'agent.yaml' (agent definition)" },
      { ok: false, error: "Protected path: 'agent.yaml' (agent definition)" },
      { ok: false, error: "Protected path: 'agent.yaml' (agent definition)" },
    ]);
    expect(await readFile(file, 'utf8')).toBe(yaml);
    const plan = await new DeclAgentBuilder().fromYamlFile(file).explain();
    expect(plan.tools.find((t) => t.name === 'write_file')?.approval).toBe('outside-scope');
    expect(plan.contexts.find((c) => c.kind === 'workspace')?.protectedPaths).toEqual(
      expect.arrayContaining([
        { path: file, reason: 'agent definition', reads: 'refused', writes: 'refused' },
        { path: '**/.env', reason: '.env', reads: 'refused', writes: 'refused' },
        { path: '**/.git/**', reason: '.git', reads: 'allowed', writes: 'ask' },
      ]),
    );
  });

  it('protects the paths given with protectPaths (the CLI passes its sessions folder)', async () => {
    await mkdir(join(dir, 'sessions'));
    const file = join(dir, 'agent.yaml');
    await writeFile(file, agentYaml('http://127.0.0.1:9', '      policy: deny\n'));
    const plan = await new DeclAgentBuilder()
      .fromYamlFile(file)
      .protectPaths([join(dir, 'sessions')], 'sessions')
      .explain();
    expect(plan.contexts.find((c) => c.kind === 'workspace')?.protectedPaths?.slice(0, 2)).toEqual([
      { path: file, reason: 'agent definition', reads: 'refused', writes: 'refused' },
      { path: join(dir, 'sessions'), reason: 'sessions', reads: 'refused', writes: 'refused' },
    ]);
  });
});

describe('workspace keys', () => {
  it("refuses root: '' (it used to become the YAML's folder)", async () => {
    const file = join(dir, 'agent.yaml');
    await writeFile(file, agentYaml('http://127.0.0.1:9', "      root: ''\n"));
    const report = await new DeclAgentBuilder().fromYamlFile(file).validate();
    expect(report.ok).toBe(false);
    expect(report.errors.map((e) => e.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/must not be empty \(write '\.' for the agent file's folder\)/),
      ]),
    );
  });

  it('reads readableOutside / readable_outside relative to the YAML folder, and env', async () => {
    const make = corePlugin.contextKinds?.workspace;
    const context = { baseDir: dir, env: {}, warn: () => {} };
    for (const key of ['readableOutside', 'readable_outside']) {
      const provider = (await make?.(
        {
          kind: 'workspace',
          name: 'w',
          config: { policy: 'deny', [key]: ['../shared', '/opt/tool'], env: { A: '1' }, network: true },
        },
        context,
      )) as IContextProvider;
      expect(provider).toBeInstanceOf(WorkspaceContextProvider);
      expect((provider as WorkspaceContextProvider).scope.properties).toEqual({
        readableOutside: [join(dir, '..', 'shared'), '/opt/tool'],
        env: { A: '1' },
        network: true,
      });
    }
  });

  it('passes env: to commands, with $VAR resolved, and nothing else secret', async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command: 'env', output_level: 'all' } }],
        },
        { text: 'done' },
      ],
    });
    const file = join(dir, 'agent.yaml');
    await writeFile(
      file,
      agentYaml(server.baseURL, '      policy: allow\n      env:\n        OPENAI_API_KEY: $OPENAI_API_KEY\n'),
    );
    const saved = process.env.GITHUB_TOKEN;
    process.env.GITHUB_TOKEN = 'ghp-parent-secret';
    try {
      const updates = await run(
        new DeclAgentBuilder().fromYamlFile(file).withEnvironment({ OPENAI_API_KEY: 'sk-from-yaml' }),
      );
      const [result] = results(updates) as { ok: boolean; data: { stdout: string } }[];
      expect(result?.data.stdout).toMatch(/^OPENAI_API_KEY=sk-from-yaml$/m);
      expect(result?.data.stdout).not.toContain('ghp-parent-secret');
    } finally {
      if (saved === undefined) delete process.env.GITHUB_TOKEN;
      else process.env.GITHUB_TOKEN = saved;
    }
  });
});
