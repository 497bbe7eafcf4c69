import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { type AgentResponseUpdate, defineTool, type IContextProvider, toolSuccess } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DeclAgentBuilder } from './decl-agent-builder.js';

// Two of the agent's own tools with one name, one injected by a context: in a run the first
// silently replaced the second. The skill tools of a skills context and the memory are joined;
// any other clash is refused at build, naming both.

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-decl-clash-')));
  await mkdir(join(dir, 'skills', 'pdf'), { recursive: true });
  await writeFile(
    join(dir, 'skills', 'pdf', 'SKILL.md'),
    '---\nname: pdf\ndescription: PDFs\n---\nUse care.\n',
  );
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const results = (updates: AgentResponseUpdate[]) =>
  Object.fromEntries(
    updates
      .filter((u) => u.type === 'tool-called')
      .map((u) => [(u as { callId: string }).callId, (u as { result: unknown }).result]),
  );

describe('tool names injected twice', () => {
  it('a skills context and the memory both inject load_skill: each finds its own skills', async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            { id: 'pdf', name: 'load_skill', arguments: { skill_name: 'pdf' } },
            { id: 'brain', name: 'load_skill', arguments: { skill_name: 'super-brain' } },
            {
              id: 'entry',
              name: 'read_skill_resource',
              arguments: { skill_name: 'super-brain', resource_path: 'index.md' },
            },
            { id: 'none', name: 'load_skill', arguments: { skill_name: 'nope' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const file = join(dir, 'agent.yaml');
    await writeFile(
      file,
      `name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ncontexts:\n  - kind: skills\n    name: team\n    config: { directory: skills }\n  - kind: memory\n    name: super-brain\n    config: { directory: memory, consolidationInterval: 0 }\n`,
    );
    const builder = new DeclAgentBuilder().fromYamlFile(file);
    expect((await builder.validate()).errors).toEqual([]);
    const agent = await builder.build();
    const updates: AgentResponseUpdate[] = [];
    for await (const update of agent.run('go')) updates.push(update);
    const got = results(updates);
    expect(got.pdf).toMatchObject({ ok: true, data: { skill_name: 'pdf', instructions: 'Use care.' } });
    // Before, the skills context's load_skill answered: "Unknown skill 'super-brain'. Available: pdf".
    expect(got.brain).toMatchObject({ ok: true, data: { skill_name: 'super-brain' } });
    expect(got.entry).toMatchObject({ ok: true });
    expect(got.none).toEqual({ ok: false, error: "Unknown skill 'nope'. Available: pdf, super-brain" });
    // The model is offered one load_skill, not two.
    const body = server.requests[0]?.body as { tools?: { function: { name: string } }[] } | undefined;
    const offered = body?.tools ?? [];
    expect(offered.filter((t) => t.function.name === 'load_skill')).toHaveLength(1);
  });

  it('a context injecting a name another context or a tools: entry has is an error naming both', async () => {
    const injecting = (name: string, tool: string): IContextProvider => {
      const injected = defineTool({
        name: tool,
        description: 'x',
        parameters: z.object({}),
        execute: () => toolSuccess('x'),
      });
      return {
        name,
        kind: 'custom',
        tools: [injected],
        onInvoking: () => ({ tools: [injected] }),
      } as IContextProvider;
    };
    const file = join(dir, 'agent.yaml');
    await writeFile(
      file,
      'name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9" } }\ncontexts:\n  - kind: memory\n    name: super-brain\n    config: { directory: memory }\n',
    );
    const report = await new DeclAgentBuilder()
      .fromYamlFile(file)
      .withContext(injecting('recaller', 'memory_recall'))
      .validate();
    expect(report.errors.map((e) => e.message)).toEqual([
      "the custom context 'recaller' injects a tool named 'memory_recall', which the memory context 'super-brain' (contexts[0]) already provides: only the first would ever be called; keep one of them",
    ]);
  });
});
