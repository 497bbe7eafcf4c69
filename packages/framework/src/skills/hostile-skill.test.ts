import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSkillDirectory } from './agent-skill.js';
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
