import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import type { AgentResponseUpdate } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wikiPlugin } from '../wiki-plugin.js';

// A writable wiki whose folder holds what the agent loads (`source: .`): the skills, the memory
// bundle and the instructions template were rewritten by wiki_write under `policy: deny`, which
// the file tools refuse. wiki_write now refuses them too; other pages are still written.

let dir: string;
let model: MockModelServer | undefined;
const SKILL = '---\nname: s1\ndescription: A skill\n---\nBe careful.\n';
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-wiki-protected-')));
  await mkdir(join(dir, 'skills', 's1'), { recursive: true });
  await writeFile(join(dir, 'skills', 's1', 'SKILL.md'), SKILL);
  await writeFile(join(dir, 'prompt.md'), 'You are careful.\n');
  await mkdir(join(dir, 'memory'), { recursive: true });
  await writeFile(join(dir, 'memory', 'index.md'), '# Memory\n');
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(dir, { recursive: true, force: true });
});

const hash = async (rel: string) =>
  createHash('sha256')
    .update(await readFile(join(dir, rel)))
    .digest('hex');

describe('wiki_write and what the agent definition loads', () => {
  it('refuses the skills folder, the memory bundle and the template, with the hash given too', async () => {
    const write = (id: string, page: string, expected?: string) => ({
      id,
      name: 'wiki_write',
      arguments: { page, content: 'evil', ...(expected && { expected_hash: expected }) },
    });
    model = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            write('tpl', 'prompt', await hash('prompt.md')),
            write('skill', 'skills/s1/SKILL', await hash('skills/s1/SKILL.md')),
            write('plant', 'skills/s2/SKILL'),
            write('memory', 'memory/index', await hash('memory/index.md')),
            write('note', 'notes/ok'),
          ],
        },
        { text: 'done' },
      ],
    });
    const file = join(dir, 'agent.yaml');
    await writeFile(
      file,
      `name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" } }\ntemplate: { format: plain, sourcePath: prompt.md }\ncontexts:\n  - kind: workspace\n    name: w\n    config: { root: ., policy: deny }\n  - kind: skills\n    name: team\n    config: { directory: skills }\n  - kind: memory\n    name: super-brain\n    config: { directory: memory, consolidationInterval: 0 }\n  - kind: wiki\n    name: notes\n    config: { source: ., writable: true, watch: false }\n`,
    );
    const agent = await new DeclAgentBuilder().fromYamlFile(file).use(wikiPlugin()).build();
    const updates: AgentResponseUpdate[] = [];
    for await (const update of agent.run('go')) updates.push(update);
    const results = Object.fromEntries(
      updates
        .filter((u) => u.type === 'tool-called')
        .map((u) => [(u as { callId: string }).callId, (u as { result: unknown }).result]),
    );
    expect(results).toEqual({
      tpl: { ok: false, error: "Protected path: 'prompt.md' (instructions template)" },
      skill: { ok: false, error: "Protected path: 'skills/s1/SKILL.md' (skills folder)" },
      plant: { ok: false, error: "Protected path: 'skills/s2/SKILL.md' (skills folder)" },
      memory: { ok: false, error: "Protected path: 'memory/index.md' (memory bundle)" },
      note: { ok: true, data: expect.objectContaining({ page: 'notes/ok', created: true }) },
    });
    expect(await readFile(join(dir, 'prompt.md'), 'utf8')).toBe('You are careful.\n');
    expect(await readFile(join(dir, 'skills', 's1', 'SKILL.md'), 'utf8')).toBe(SKILL);
    expect(await readFile(join(dir, 'memory', 'index.md'), 'utf8')).toBe('# Memory\n');
    expect(await readFile(join(dir, 'notes', 'ok.md'), 'utf8')).toBe('evil');
  });
});
