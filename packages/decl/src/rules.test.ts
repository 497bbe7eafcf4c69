import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockModelServer } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { FILE_TOOL_NAMES } from '@raf/framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DeclAgentBuilder } from './builder/decl-agent-builder.js';

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-decl-')));
  await mkdir(join(dir, 'work'));
  await mkdir(join(dir, 'skills', 'pdf', 'references'), { recursive: true });
  await writeFile(
    join(dir, 'skills', 'pdf', 'SKILL.md'),
    '---\nname: pdf\ndescription: Fill PDF forms\n---\nUse the form.\n',
  );
  await writeFile(join(dir, 'skills', 'pdf', 'references', 'f.md'), 'fields');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const MODEL = 'model: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }';

async function agentFile(name: string, body: string): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, `name: ${name}\n${MODEL}\n${body}`);
  return file;
}

const workspace = (policy: string) =>
  `contexts:\n  - kind: workspace\n    name: ws\n    config: { root: ./work, policy: ${policy} }\n`;

describe('the linkage rules through YAML', () => {
  it('rules 1 and 6: `- kind: file` under an approve workspace gives 11 gated, scoped tools', async () => {
    const plan = await new DeclAgentBuilder()
      .fromYamlFile(await agentFile('approve', `${workspace('approve')}tools:\n  - kind: file\n`))
      .explain();
    expect(plan.tools.map((t) => t.name)).toEqual([...FILE_TOOL_NAMES]);
    for (const tool of plan.tools) {
      expect(tool).toMatchObject({ source: 'workspace', workspace: 'ws', gated: true });
      expect(tool.approval).toBe(tool.name === 'run_command' ? 'unless-allowed' : 'outside-scope');
    }
    expect(plan.tools.find((t) => t.name === 'write_file')).toMatchObject({
      executionMode: 'sequential',
      route: 'main-process-proxy',
    });
    expect(plan.tools.find((t) => t.name === 'read_file')).toMatchObject({
      executionMode: 'parallel',
      route: 'worker-local',
    });
  });

  it('rule 1: policy read is AllowAll (nothing gated); an unknown policy is an error at its line', async () => {
    const read = await new DeclAgentBuilder()
      .fromYamlFile(await agentFile('read', `${workspace('read')}tools:\n  - kind: file\n`))
      .explain();
    expect(read.tools.every((t) => !t.gated && t.approval === 'never')).toBe(true);
    const builder = new DeclAgentBuilder().fromYamlFile(
      await agentFile('yolo', `${workspace('yolo')}tools:\n  - kind: file\n`),
    );
    const report = await builder.validate();
    expect(report.ok).toBe(false);
    expect(report.errors).toEqual([
      expect.objectContaining({
        path: 'contexts[0].config.policy',
        message: expect.stringMatching(/^unknown workspace policy "yolo"; use read/),
      }),
    ]);
    await expect(builder.build()).rejects.toThrow(/unknown workspace policy "yolo"/);
  });

  it('rule 2: skills inject load_skill and read_skill_resource, never declared in tools', async () => {
    const file = await agentFile('skills', 'contexts:\n  - kind: skills\n    name: pdf\n');
    const plan = await new DeclAgentBuilder().fromYamlFile(file).explain();
    expect(plan.tools).toEqual([
      expect.objectContaining({
        name: 'load_skill',
        source: 'injected',
        context: 'pdf',
        gated: false,
      }),
      expect.objectContaining({ name: 'read_skill_resource', source: 'injected' }),
    ]);
    expect(plan.toolLoop).toBe(true);
  });

  it('rules 3, 4 and 7: history first, then contexts in declaration order; a workspace-only agent has the tool loop', async () => {
    const body = `contexts:\n  - kind: skills\n    name: pdf\n  - kind: workspace\n    name: ws\n    config: { root: ./work }\n  - kind: compression\n    name: sliding_window\n`;
    const plan = await new DeclAgentBuilder().fromYamlFile(await agentFile('order', body)).explain();
    expect(plan.contexts).toEqual([
      { kind: 'history', name: 'InMemoryHistoryProvider', provider: 'InMemoryHistoryProvider', order: 0 },
      { kind: 'skills', name: 'pdf', provider: 'AgentSkillsProvider', order: 1 },
      {
        kind: 'workspace',
        name: 'ws',
        provider: 'WorkspaceContextProvider',
        order: 2,
        protectedPaths: expect.arrayContaining([expect.objectContaining({ reason: 'agent definition' })]),
      },
      {
        kind: 'compression',
        name: 'sliding_window',
        provider: 'compression:sliding_window',
        order: 3,
      },
    ]);
    const only = await new DeclAgentBuilder()
      .fromYamlFile(await agentFile('wsonly', workspace('approve')))
      .explain();
    expect(only.toolLoop).toBe(true);
    expect(only.tools).toEqual([]);
  });

  it('rule 0: `kind: web` without @raf/web names the package and the position', async () => {
    const file = await agentFile('web', 'tools:\n  - kind: web\n');
    const report = await new DeclAgentBuilder().fromYamlFile(file).validate();
    expect(report.errors).toEqual([
      expect.objectContaining({
        line: 4,
        column: 11,
        path: 'tools[0].kind',
        message: 'tool kind "web" needs @raf/web (pnpm add @raf/web; builder.use(webPlugin()))',
      }),
    ]);
  });

  it('rule 0: a registered plugin contributes a tool kind and its expansion', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Ping',
      parameters: z.object({}),
      execute: () => toolSuccess('pong'),
    });
    const plan = await new DeclAgentBuilder()
      .fromYamlFile(await agentFile('plugin', 'tools:\n  - kind: net\n'))
      .use({
        specificationVersion: 'v1',
        packageName: '@acme/net',
        toolKinds: { net: () => [ping] },
        toolExpansions: { net: ['ping'] },
      })
      .explain();
    expect(plan.tools.map((t) => t.name)).toEqual(['ping']);
  });

  it('mixed mode: a YAML function tool gets its YAML description; withTool tools are not routed', async () => {
    const server = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'lookup', arguments: { q: 'x' } },
            { id: 'c2', name: 'clock', arguments: {} },
          ],
        },
        { text: 'done' },
      ],
    });
    try {
      const yaml = `name: mixed\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\n${workspace('approve')}tools:\n  - kind: function\n    name: lookup\n    description: Look a word up in the team glossary\n    parameters: { type: object, properties: { q: { type: string } }, required: [q] }\n`;
      const lookup = defineTool({
        name: 'lookup',
        description: 'factory text',
        parameters: z.object({ q: z.string() }),
        execute: ({ q }) => toolSuccess({ q }),
      });
      const clock = defineTool({
        name: 'clock',
        description: 'Time',
        parameters: z.object({}),
        execute: () => toolSuccess('noon'),
        requiresApproval: false,
      });
      const builder = new DeclAgentBuilder()
        .fromYaml(yaml, join(dir, 'mixed.yaml'))
        .registerFactory('lookup', () => lookup)
        .withTool('clock', clock);
      const plan = await builder.explain();
      expect(plan.tools.map((t) => [t.name, t.source])).toEqual([
        ['lookup', 'static'],
        ['clock', 'static'],
      ]);
      const agent = await builder.build();
      const updates = [];
      for await (const u of agent.run('go')) updates.push(u);
      expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
      const sent = server.requests[0]?.body as {
        tools: { function: { name: string; description: string } }[];
      };
      expect(sent.tools.find((t) => t.function.name === 'lookup')?.function.description).toBe(
        'Look a word up in the team glossary',
      );
    } finally {
      await server.close();
    }
  });

  it('two workspaces: scope tools go to the first one, and explain says so', async () => {
    const body = `contexts:\n  - kind: workspace\n    name: a\n    config: { root: ./work }\n  - kind: workspace\n    name: b\n    config: { root: ./work }\ntools:\n  - kind: file\n    name: read_file\n`;
    const plan = await new DeclAgentBuilder().fromYamlFile(await agentFile('two', body)).explain();
    expect(plan.tools).toEqual([expect.objectContaining({ name: 'read_file', workspace: 'a' })]);
    expect(plan.warnings).toEqual([
      expect.stringMatching(/scope tools go to the first workspace 'a'; b gets none/),
    ]);
  });
});

describe('instructions, connections and overrides', () => {
  it('renders a mustache template from variables and appends additionalInstructions', async () => {
    const yaml = `name: t\n${MODEL}\ntemplate: mustache\ninstructions: "You help {{team}} with <{{product}}>."\nadditionalInstructions: Answer in English.\n`;
    const plan = await new DeclAgentBuilder()
      .fromYaml(yaml)
      .withVariables({ team: 'Ops', product: 'A&B' })
      .explain();
    expect(plan.instructions).toBe('You help Ops with <A&B>.\n\nAnswer in English.');
  });

  it('resolves connection references and lets --model/--base-url override the file', async () => {
    const server = await startMockModelServer({ turns: [{ text: 'hi' }] });
    try {
      const yaml =
        'name: r\nmodel: { id: m, provider: custom, connection: { kind: reference, name: local } }\n';
      const agent = await new DeclAgentBuilder()
        .fromYaml(yaml)
        .withConnection('local', { endpoint: server.baseURL })
        .build();
      for await (const _ of agent.run('x')) {
        // drain
      }
      expect(server.requests).toHaveLength(1);
      const override = await new DeclAgentBuilder()
        .fromYaml(`name: o\nmodel: { id: m, provider: openai }\n`)
        .withModel({ id: 'other-model', baseURL: server.baseURL, apiKey: 'sk' })
        .explain();
      expect(override.model).toEqual({ provider: 'openai', id: 'other-model' });
    } finally {
      await server.close();
    }
  });
});

describe('templates from a file, and the editor schema', () => {
  it('reads template.sourcePath relative to the agent file', async () => {
    await writeFile(join(dir, 'prompt.mustache'), 'Hello {{who}}.');
    const file = await agentFile('tpl', 'template:\n  format: mustache\n  sourcePath: ./prompt.mustache\n');
    const plan = await new DeclAgentBuilder().fromYamlFile(file).withVariables({ who: 'team' }).explain();
    expect(plan.instructions).toBe('Hello team.');
    const missing = await agentFile('tpl2', 'template: { format: mustache, sourcePath: ./nope.mustache }\n');
    const report = await new DeclAgentBuilder().fromYamlFile(missing).validate();
    expect(report.errors[0]).toMatchObject({
      path: 'template.sourcePath',
      message: expect.stringMatching(/cannot read the template/),
    });
  });
});

describe('compression from YAML', () => {
  it('builds sliding_window with the exact token counter, and reports an unsupported strategy at its field', async () => {
    const exact = await agentFile(
      'cmp',
      'compression: { kind: sliding_window, windowSize: 4 }\ntokenCounter: { kind: exact }\n',
    );
    const plan = await new DeclAgentBuilder().fromYamlFile(exact).explain();
    expect(plan.contexts.at(-1)).toMatchObject({ kind: 'compression', name: 'compression:sliding_window' });
    const zip = await agentFile('cmp3', 'contexts:\n  - kind: compression\n    name: zip\n');
    const report = await new DeclAgentBuilder().fromYamlFile(zip).validate();
    expect(report.errors).toEqual([
      expect.objectContaining({
        path: 'contexts[0]',
        message: expect.stringMatching(/"zip" is not one of sliding_window, token_budget, summarize/),
      }),
    ]);
  });

  it("summarize is built, top level and as a context, and summarizes with the agent's own model", async () => {
    const contextForm = await agentFile('cmp4', 'contexts:\n  - kind: compression\n    name: summarize\n');
    expect((await new DeclAgentBuilder().fromYamlFile(contextForm).explain()).contexts.at(-1)).toEqual({
      kind: 'compression',
      name: 'summarize',
      provider: 'compression:summarize',
      order: 1,
    });
    const server = await startMockModelServer({
      turns: [{ text: 'first answer' }, { text: 'SUMMARY: the user said hello' }, { text: 'second answer' }],
    });
    try {
      const yaml = `name: s\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ncompression: { kind: summarize, maxTokens: 40, keepRecentShare: 0.5 }\n`;
      const agent = await new DeclAgentBuilder().fromYaml(yaml).build();
      const session = agent.createSession();
      for await (const _ of agent.run(
        `hello there: ${'a long opening message about many things. '.repeat(8)}`,
        {
          session,
        },
      )) {
        // drain
      }
      for await (const _ of agent.run('and a second message', { session })) {
        // drain
      }
      const bodies = server.requests.map((r) => JSON.stringify(r.body));
      expect(bodies).toHaveLength(3);
      expect(bodies[1]).toContain('Summarize the conversation');
      expect(bodies[2]).toContain('SUMMARY: the user said hello');
    } finally {
      await server.close();
    }
  });
});
