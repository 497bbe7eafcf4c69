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
  dir = join(await mkdtemp(join(tmpdir(), 'raf-quickstart-')), 'quickstart');
  await cp(here, dir, { recursive: true, filter: (src) => !src.includes('node_modules') });
});
afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

describe('the quickstart example', () => {
  it('runs offline on its recorded model: reads, asks for run_command (approved), writes', async () => {
    const run = createMemoryIO({ cwd: dir });
    const code = await main(
      ['run', 'agent.yaml', '-i', 'Summarise my todo list into summary.md', '--approve', 'all'],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    expect(run.err()).toBe(
      [
        '→ read_file {"path":"todo.md"} ✓ 6 lines',
        `✓ approved (--approve all): run_command ${join(dir, 'workspace')}$ wc -l todo.md`,
        '→ run_command {"command":"wc -l todo.md"} ✓ exit 0',
        '→ write_file {"path":"summary.md","content":"# Summary\\n\\n1 of 4 done. Open: review the path… ✓ 136 bytes written',
        '',
      ].join('\n'),
    );
    expect(run.out()).toMatch(/^I read todo\.md .* expires on Friday\.\n$/);
    expect(await readFile(join(dir, 'workspace/summary.md'), 'utf8')).toMatch(/^# Summary/);
  });

  it('without --approve it pauses (exit 3) and says how to resume', async () => {
    const run = createMemoryIO({ cwd: dir });
    expect(
      await main(['run', 'agent.yaml', '-i', 'Summarise my todo list', '--session', 'demo'], run.io),
    ).toBe(3);
    expect(run.err()).toContain(
      'paused for approval; resume with: raf run agent.yaml --session demo --approve all|none',
    );
    const resumed = createMemoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '--session', 'demo', '--approve', 'all'], resumed.io)).toBe(0);
  });
});
