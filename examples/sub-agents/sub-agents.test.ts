import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryIO, main } from '@raf/cli';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
let dir: string;
beforeEach(async () => {
  // A copy: the run writes workspace/summary.md.
  dir = join(await mkdtemp(join(tmpdir(), 'raf-sub-agents-')), 'sub-agents');
  await cp(here, dir, { recursive: true, filter: (src) => !src.includes('node_modules') });
});
afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

describe('the sub-agents example', () => {
  it('runs offline: the coordinator delegates to the researcher and the writer, each in a worker process', async () => {
    const run = createMemoryIO({ cwd: dir });
    const code = await main(
      ['run', 'agent.yaml', '-i', 'Summarise the meeting notes into summary.md'],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    expect(run.err()).toBe(
      [
        '→ delegate_task {"agent":"researcher","task":"Read every file in notes/ and list the decisions … ✓ researcher: Decisions: ship the importer on Thursday; Lea owns the migration guide; keep the old config keys fo…',
        '→ delegate_task {"agent":"writer","task":"Write summary.md: a \'# Meeting summary\' heading, then… ✓ writer: Wrote summary.md with 3 decisions and 2 open questions.',
        '',
      ].join('\n'),
    );
    expect(run.out()).toBe(
      'The researcher found three decisions and two open questions in notes/, and the writer put them in summary.md.\n',
    );
    expect(await readFile(join(dir, 'workspace/summary.md'), 'utf8')).toMatch(
      /^# Meeting summary\n\n## Decisions\n- Ship the importer on Thursday\./,
    );
  }, 60_000);

  it('inspect shows where each sub-agent runs its tools', async () => {
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['inspect', 'agent.yaml', '--json'], run.io)).toBe(0);
    const { runtime } = JSON.parse(run.out()) as {
      runtime: { subAgents: { agent: string; tools: { name: string; runtime: { route: string } }[] }[] };
    };
    const routes = Object.fromEntries(
      runtime.subAgents.map((s) => [
        s.agent,
        Object.fromEntries(
          s.tools.filter((t) => t.runtime.route !== 'disabled').map((t) => [t.name, t.runtime.route]),
        ),
      ]),
    );
    expect(routes).toEqual({
      researcher: { list_files: 'worker-local', read_file: 'worker-local', search_file: 'worker-local' },
      writer: { write_file: 'main-process-proxy' },
    });
  });
});
