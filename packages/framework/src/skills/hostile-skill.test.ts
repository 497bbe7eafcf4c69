import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSkillDirectory, scanSkills } from './agent-skill.js';
import { AgentSkillsProvider } from './agent-skills-provider.js';
import { createReadSkillResourceTool } from './skill-tools.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-hostile-skill-'));
  await mkdir(join(dir, 'skill', 'references'), { recursive: true });
  await mkdir(join(dir, 'outside'));
  await writeFile(join(dir, 'outside', 'secret.md'), 'the launch code is zebra-42\n');
  await writeFile(
    join(dir, 'skill', 'SKILL.md'),
    '---\nname: demo\ndescription: A demo skill\n---\nUse it.\n',
  );
  await writeFile(join(dir, 'skill', 'references', 'api.md'), '# API\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a skill folder with planted links and FIFOs', () => {
  it('lists and reads no link (inside or out) and no FIFO; a real resource still reads', async () => {
    await symlink(join(dir, 'outside', 'secret.md'), join(dir, 'skill', 'references', 'leak.md'));
    await symlink(join(dir, 'outside'), join(dir, 'skill', 'assets'));
    execFileSync('mkfifo', [join(dir, 'skill', 'references', 'pipe.md')]);
    const skill = await loadSkillDirectory(join(dir, 'skill'));
    expect(skill.resources).toEqual(['references/api.md']);
    const tool = createReadSkillResourceTool([skill]);
    const read = (resource_path: string) =>
      tool.execute({ skill_name: 'demo', resource_path }, { signal: AbortSignal.timeout(5000), callId: 'r' });
    expect(await read('references/api.md')).toMatchObject({ ok: true, data: { content: '# API\n' } });
    for (const path of [
      'references/leak.md',
      'assets/secret.md',
      '../outside/secret.md',
      'references/pipe.md',
    ]) {
      const result = await read(path);
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toContain('zebra');
    }
  });

  it('a SKILL.md that is a FIFO or a link is a located error, at once', async () => {
    await rm(join(dir, 'skill', 'SKILL.md'));
    execFileSync('mkfifo', [join(dir, 'skill', 'SKILL.md')]);
    await expect(loadSkillDirectory(join(dir, 'skill'))).rejects.toThrow(/SKILL\.md.*not a regular file/);
    await rm(join(dir, 'skill', 'SKILL.md'));
    await symlink(join(dir, 'outside', 'secret.md'), join(dir, 'skill', 'SKILL.md'));
    await expect(loadSkillDirectory(join(dir, 'skill'))).rejects.toThrow(/symbolic link/);
  });
});

describe('a folder of skills holding links', () => {
  it('skips a skill folder and a SKILL.md that are links, naming each path and why; loads the rest', async () => {
    const skills = join(dir, 'skills');
    await mkdir(join(skills, 'real'), { recursive: true });
    await writeFile(
      join(skills, 'real', 'SKILL.md'),
      '---\nname: real\ndescription: A real skill\n---\nGo.\n',
    );
    // A folder link (to a folder holding a skill) and a SKILL.md link (to a file outside).
    await symlink(join(dir, 'skill'), join(skills, 'linked'));
    await mkdir(join(skills, 'file-link'));
    await symlink(join(dir, 'skill', 'SKILL.md'), join(skills, 'file-link', 'SKILL.md'));
    // A link to a file is not a skill folder: nothing to say about it.
    await symlink(join(dir, 'outside', 'secret.md'), join(skills, 'notes.md'));
    const warnings: string[] = [];
    const found = await scanSkills(skills, { onWarning: (m) => warnings.push(m) });
    expect(found.map((s) => s.metadata.name)).toEqual(['real']);
    const why =
      'links are not followed (a link could lead outside the skills folder), so the skill is skipped';
    expect(warnings).toEqual([
      `${join(skills, 'file-link', 'SKILL.md')}: SKILL.md is a symbolic link; ${why}`,
      `${join(skills, 'linked')}: the skill folder is a symbolic link; ${why}`,
    ]);
  });

  it('a one-skill folder whose SKILL.md is a link is skipped with a warning, and a throwing onWarning makes it an error', async () => {
    await rm(join(dir, 'skill', 'SKILL.md'));
    await symlink(join(dir, 'outside', 'secret.md'), join(dir, 'skill', 'SKILL.md'));
    const warnings: string[] = [];
    const provider = await AgentSkillsProvider.scan(join(dir, 'skill'), {
      onWarning: (m) => warnings.push(m),
    });
    expect(provider.skills).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/skill\/SKILL\.md: SKILL\.md is a symbolic link; links are not followed/),
    ]);
    await expect(
      scanSkills(join(dir, 'skill'), {
        onWarning: (m) => {
          throw new Error(m);
        },
      }),
    ).rejects.toThrow(/symbolic link/);
  });
});
