import { fileURLToPath } from 'node:url';
import { createMemoryIO, main } from '@raf/cli';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));

describe('the skills example', () => {
  it('inspect shows the injected skill tools; run loads a skill and its reference offline', async () => {
    const inspect = createMemoryIO({ cwd: here });
    expect(await main(['inspect', 'agent.yaml', '--json'], inspect.io)).toBe(0);
    const plan = JSON.parse(inspect.out()) as {
      tools: { name: string; source: string }[];
      instructions: string;
    };
    expect(plan.tools.map((t) => [t.name, t.source])).toEqual([
      ['load_skill', 'injected'],
      ['read_skill_resource', 'injected'],
    ]);
    const run = createMemoryIO({ cwd: here });
    const code = await main(
      [
        'run',
        'agent.yaml',
        '-i',
        'Release notes please',
        '--json',
        '--sessions-dir',
        '/tmp/raf-example-skills',
      ],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    const lines = run
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const results = lines.filter((l) => l.type === 'tool-result').map((l) => l.result);
    expect(results[0]).toMatchObject({
      ok: true,
      data: { skill_name: 'release-notes', resources: ['references/style.md'] },
    });
    expect(results[1]).toMatchObject({
      ok: true,
      data: { content: expect.stringContaining('No marketing words') },
    });
    expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });
});
