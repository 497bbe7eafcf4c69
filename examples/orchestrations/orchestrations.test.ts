import { fileURLToPath } from 'node:url';
import { createMemoryIO, main } from '@raf/cli';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));

async function run(args: string[]) {
  const io = createMemoryIO({ cwd: here });
  const code = await main(args, io.io);
  return { code, out: io.out(), err: io.err() };
}

describe('the orchestration examples', () => {
  it('review-team: the drafter then the editor, whose sentence is the answer', async () => {
    const result = await run(['run', 'review-team.yaml', '-i', 'tides']);
    expect(result.code).toBe(0);
    expect(result.err.match(/▸ \S+ \((\w+)\)/g)).toEqual([
      '▸ seq_agent_0 (drafter)',
      '▸ seq_agent_1 (editor)',
    ]);
    expect(result.out).toBe(
      "The Moon's pull raises the oceans: most coasts see two high and two low tides each day.\n",
    );
  });

  it('panel: three votes, the majority wins; validate and inspect name the mode', async () => {
    const result = await run(['run', 'panel.yaml', '-i', 'Which city hosts the 2024 Olympics?']);
    expect(result).toMatchObject({ code: 0, out: 'Paris\n' });
    expect((await run(['validate', 'panel.yaml'])).out).toContain(
      'panel.yaml: orchestration(vote, 3 sub-agents)',
    );
    const inspect = await run(['inspect', 'panel.yaml']);
    expect(inspect.out).toContain('orchestration vote: orchestration(vote, 3 sub-agents)');
    expect(inspect.out).toContain('vote_aggregate (function, majority)');
  });
});
