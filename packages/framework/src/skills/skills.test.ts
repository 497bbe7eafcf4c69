import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@raf/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { createFileTools } from '../builtin-tools/index.js';
import {
  call,
  drain,
  type Harness,
  sentMessages,
  significant,
  startHarness,
} from '../test-support/harness.js';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';
import { defineSkill, parseSkillMarkdown, scanSkills } from './agent-skill.js';
import { AgentSkillsProvider } from './agent-skills-provider.js';

let base: string;
let harness: Harness | undefined;
const skillMd = (name: string, description: string, body = `# ${name}\nDo the ${name} thing.`) =>
  `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\nmetadata:\n  author: raf\n  version: 2\n---\n${body}\n`;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'raf-skills-')));
  await mkdir(join(base, 'skills', 'pdf', 'references'), { recursive: true });
  await mkdir(join(base, 'skills', 'pdf', 'assets'), { recursive: true });
  await mkdir(join(base, 'skills', 'notes'), { recursive: true });
  await mkdir(join(base, 'skills', 'not-a-skill'), { recursive: true });
  await writeFile(join(base, 'skills', 'pdf', 'SKILL.md'), skillMd('pdf', 'Fill PDF forms'));
  await writeFile(join(base, 'skills', 'pdf', 'references', 'forms.md'), 'Field names are case-sensitive.');
  await writeFile(join(base, 'skills', 'pdf', 'assets', 'logo.txt'), 'LOGO');
  await writeFile(join(base, 'secret.txt'), 'secret');
  await symlink(join(base, 'secret.txt'), join(base, 'skills', 'pdf', 'references', 'escape.md'));
  await writeFile(join(base, 'skills', 'notes', 'SKILL.md'), skillMd('notes', 'Take meeting notes'));
  await mkdir(join(base, 'work'));
});
afterAll(() => rm(base, { recursive: true, force: true }));
afterEach(() => harness?.close());

describe('skills loading', () => {
  it('reads a folder of skills and a single skill, with frontmatter through a YAML parser', async () => {
    const skills = await scanSkills(join(base, 'skills'));
    expect(skills.map((s) => s.metadata)).toEqual([
      {
        name: 'notes',
        description: 'Take meeting notes',
        license: 'MIT',
        metadata: { author: 'raf', version: '2' },
      },
      {
        name: 'pdf',
        description: 'Fill PDF forms',
        license: 'MIT',
        metadata: { author: 'raf', version: '2' },
      },
    ]);
    expect(skills[1]?.resources).toEqual(['assets/logo.txt', 'references/forms.md']);
    expect((await scanSkills(join(base, 'skills', 'notes'))).map((s) => s.metadata.name)).toEqual(['notes']);
  });

  it('reports broken SKILL.md files with file, line and field', () => {
    expect(() => parseSkillMarkdown('no frontmatter', 'x/SKILL.md')).toThrow(
      'x/SKILL.md:1: SKILL.md must start with YAML frontmatter',
    );
    expect(() => parseSkillMarkdown('---\nname: a\ndescription: [oops\n---\nbody', 'x/SKILL.md')).toThrow(
      /^x\/SKILL\.md:3: invalid YAML/,
    );
    expect(() => parseSkillMarkdown('---\nname: a\ndescription: 5\n---\n', 'x/SKILL.md')).toThrow(
      "x/SKILL.md:3: field 'description': Invalid input: expected string, received number",
    );
    expect(() => parseSkillMarkdown('---\nname: a\n---\n', 'x/SKILL.md')).toThrow(ConfigError);
  });

  it('refuses a missing folder and duplicate names', async () => {
    await expect(scanSkills(join(base, 'nope'))).rejects.toThrow(/does not exist/);
    const one = defineSkill({ name: 'a', description: 'A' }, 'x');
    expect(() => new AgentSkillsProvider([one, one])).toThrow(/two skills are named 'a'/);
  });
});

describe('rule 2: skills inject tools', () => {
  it('offers load_skill and read_skill_resource, never routed to the workspace nor gated', async () => {
    harness = await startHarness([
      {
        toolCalls: [
          call('c1', 'load_skill', { skill_name: 'pdf' }),
          call('c2', 'read_skill_resource', { skill_name: 'pdf', resource_path: 'references/forms.md' }),
          call('c3', 'read_skill_resource', { skill_name: 'pdf', resource_path: '../../secret.txt' }),
          call('c4', 'read_skill_resource', { skill_name: 'pdf', resource_path: 'references/escape.md' }),
          call('c5', 'load_skill', { skill_name: 'nope' }),
        ],
      },
      { text: 'done' },
    ]);
    const workspace = new WorkspaceContextProvider({
      root: join(base, 'work'),
      name: 'w',
      policy: 'ApproveOutside',
    }).addTools(createFileTools());
    const skills = await AgentSkillsProvider.scan(join(base, 'skills'));
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withContextProvider(workspace)
      .withContextProvider(skills)
      .build();
    const updates = significant(await drain(agent.run('fill the form')));
    expect(updates.some((u) => u.type === 'tool-approval-request')).toBe(false);
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    const request = harness.server.requests[0]?.body as {
      tools: { function: { name: string } }[];
      messages: { content: string }[];
    };
    const names = request.tools.map((t) => t.function.name);
    expect(names.slice(-2)).toEqual(['load_skill', 'read_skill_resource']);
    expect(workspace.tools.map((t) => t.name)).not.toContain('load_skill');
    expect(request.messages[0]?.content).toContain(
      "## Available Skills\nCall load_skill(skill_name) to load a skill's full instructions before you use it.\n- **notes**: Take meeting notes\n- **pdf**: Fill PDF forms",
    );
    const results = sentMessages(harness.server, 1)
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(String(m.content)));
    expect(results[0]).toMatchObject({
      ok: true,
      data: { skill_name: 'pdf', instructions: '# pdf\nDo the pdf thing.' },
    });
    expect(results[1]).toMatchObject({ ok: true, data: { content: 'Field names are case-sensitive.' } });
    expect(results[2]).toEqual({
      ok: false,
      error: "Access denied: '../../secret.txt' is outside skill 'pdf'",
    });
    expect(results[3]).toEqual({
      ok: false,
      error: "'references/escape.md' is (or goes through) a symbolic link; links are not followed here",
    });
    expect(results[4]).toEqual({ ok: false, error: "Unknown skill 'nope'. Available: notes, pdf" });
  });

  it('offers only load_skill when no skill has resources', async () => {
    const provider = await AgentSkillsProvider.scan(join(base, 'skills', 'notes'));
    expect(provider.tools.map((t) => t.name)).toEqual(['load_skill']);
    expect(provider.onInvoking().instructions).not.toContain('read_skill_resource');
    const inline = new AgentSkillsProvider([
      defineSkill({ name: 'x', description: 'X' }, 'body', { 'references/a.md': 'A' }),
    ]);
    const read = inline.tools.find((t) => t.name === 'read_skill_resource')!;
    expect(
      await read.execute(
        { skill_name: 'x', resource_path: 'references/a.md' },
        { signal: new AbortController().signal, callId: 'c' },
      ),
    ).toMatchObject({ ok: true, data: { content: 'A' } });
  });
});

describe('combineSkillTools', () => {
  it('joins the same two tools into the same tool every run, and names a new pair anew', async () => {
    const { createLoadSkillTool, combineSkillTools } = await import('./skill-tools.js');
    const [pdf, notes] = [
      defineSkill({ name: 'pdf', description: 'PDFs' }, 'Use care.'),
      defineSkill({ name: 'notes', description: 'Notes' }, 'Be brief.'),
    ];
    const [a, b, c] = [
      createLoadSkillTool([pdf]),
      createLoadSkillTool([notes]),
      createLoadSkillTool([notes]),
    ];
    const joined = combineSkillTools(a, b);
    expect(joined).toBeDefined();
    expect(combineSkillTools(a, b)).toBe(joined);
    expect(combineSkillTools(a, c)).not.toBe(joined);
    expect(combineSkillTools(b, a)).not.toBe(joined);
    const signal = new AbortController().signal;
    const loaded = await joined!.execute({ skill_name: 'notes' }, { signal } as never);
    expect(loaded).toMatchObject({ ok: true, data: { skill_name: 'notes' } });
  });
});
