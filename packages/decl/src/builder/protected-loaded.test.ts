import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import type { AgentResponseUpdate } from '@raf/core';
import { workerModuleFolder } from '@raf/framework';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeclAgentBuilder } from './decl-agent-builder.js';
import { workerFactoryModule } from './worker-factory-ref.js';

// Issue 26: what the agent definition loads (skills folders, the memory bundle, the instructions'
// template, sub-agent worker modules) is protected in every workspace, like the agent file, but
// readable: the file tools never change it, the memory tools still write the bundle.

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-decl-loaded-')));
  await mkdir(join(dir, 'skills', 'pdf'), { recursive: true });
  await writeFile(
    join(dir, 'skills', 'pdf', 'SKILL.md'),
    '---\nname: pdf\ndescription: PDFs\n---\nUse care.\n',
  );
  await writeFile(join(dir, 'prompt.md'), 'You are careful.\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const yaml = (endpoint: string, extra = '') =>
  `name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "${endpoint}" } }\ntemplate: { format: plain, sourcePath: prompt.md }\ncontexts:\n  - kind: workspace\n    name: project\n    config: { root: ., policy: deny }\n  - kind: skills\n    name: pdf\n    config: { directory: skills/pdf }\n  - kind: memory\n    name: super-brain\n    config: { directory: memory, consolidationInterval: 0 }\ntools:\n  - kind: file\n${extra}`;

const tools = (updates: AgentResponseUpdate[]) =>
  Object.fromEntries(
    updates
      .filter((u) => u.type === 'tool-called')
      .map((u) => [
        (u as { callId: string }).callId,
        (u as { result: { ok: boolean; error?: string } }).result,
      ]),
  );

describe('what the definition loads is protected (readable, never written by the file tools)', () => {
  it('lists skills, the memory bundle and the template in inspect', async () => {
    const file = join(dir, 'agent.yaml');
    await writeFile(file, yaml('http://127.0.0.1:9'));
    const plan = await new DeclAgentBuilder().fromYamlFile(file).explain();
    const rules = plan.contexts.find((c) => c.kind === 'workspace')?.protectedPaths ?? [];
    expect(rules).toEqual(
      expect.arrayContaining([
        { path: join(dir, 'skills', 'pdf'), reason: 'skills folder', reads: 'allowed', writes: 'refused' },
        { path: join(dir, 'memory'), reason: 'memory bundle', reads: 'allowed', writes: 'refused' },
        {
          path: join(dir, 'prompt.md'),
          reason: 'instructions template',
          reads: 'allowed',
          writes: 'refused',
        },
      ]),
    );
  });

  it('refuses the file tools on them under deny; memory_save still writes the bundle', async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            { id: 'skill', name: 'write_file', arguments: { path: 'skills/pdf/SKILL.md', content: 'evil' } },
            {
              id: 'plant',
              name: 'write_file',
              arguments: { path: 'memory/references/USER.md', content: 'x' },
            },
            { id: 'dir', name: 'make_directory', arguments: { path: 'memory/assets/evil' } },
            {
              id: 'tpl',
              name: 'edit_file',
              arguments: { path: 'prompt.md', old_str: 'careful', new_str: 'reckless' },
            },
            { id: 'read', name: 'read_file', arguments: { path: 'skills/pdf/SKILL.md' } },
            { id: 'save', name: 'memory_save', arguments: { topic: 'user', content: 'Likes tea.' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const file = join(dir, 'agent.yaml');
    await writeFile(file, yaml(server.baseURL));
    const agent = await new DeclAgentBuilder().fromYamlFile(file).build();
    const updates: AgentResponseUpdate[] = [];
    for await (const update of agent.run('go')) updates.push(update);
    const results = tools(updates);
    expect(results.skill).toEqual({
      ok: false,
      error: "Protected path: 'skills/pdf/SKILL.md' (skills folder)",
    });
    expect(results.plant).toEqual({
      ok: false,
      error: "Protected path: 'memory/references/USER.md' (memory bundle)",
    });
    expect(results.dir).toEqual({ ok: false, error: "Protected path: 'memory/assets/evil' (memory bundle)" });
    expect(results.tpl).toEqual({ ok: false, error: "Protected path: 'prompt.md' (instructions template)" });
    expect(results.read).toMatchObject({ ok: true });
    expect(results.save).toMatchObject({ ok: true });
    expect(await readFile(join(dir, 'skills', 'pdf', 'SKILL.md'), 'utf8')).toMatch(/Use care/);
    expect(await readFile(join(dir, 'prompt.md'), 'utf8')).toBe('You are careful.\n');
    expect(await readFile(join(dir, 'memory', 'references', 'USER.md'), 'utf8')).toMatch(/Likes tea/);
  });

  it('protects the worker modules of an agent with sub-agents, in its workspaces and theirs', async () => {
    const file = join(dir, 'agent.yaml');
    await writeFile(
      file,
      yaml(
        'http://127.0.0.1:9',
        'subAgents:\n  - kind: prompt\n    name: helper\n    model: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9" } }\n    instructions: Help.\n',
      ),
    );
    const plan = await new DeclAgentBuilder().fromYamlFile(file).explain();
    const rules = plan.contexts.find((c) => c.kind === 'workspace')?.protectedPaths ?? [];
    for (const folder of new Set([workerModuleFolder(), dirname(workerFactoryModule())]))
      expect(rules).toContainEqual({
        path: folder,
        reason: 'sub-agent worker modules',
        reads: 'allowed',
        writes: 'refused',
      });
  });
});
