import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-help-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const cli = async (argv: string[]) => {
  const run = createMemoryIO({ cwd: dir });
  const code = await main(argv, run.io);
  return { code, out: run.out(), err: run.err() };
};

describe('issue 29 item 10', () => {
  it('raf validate --help lists only the exit codes validate returns', async () => {
    const help = await cli(['validate', '--help']);
    expect(help.out).toContain('Exit codes: 0 every file is valid, 2 a file has errors (or bad usage).');
    expect(help.out).not.toMatch(/paused|130|model\/provider/);
    // A command that runs the model keeps the full list.
    expect((await cli(['run', '--help'])).out).toContain('3 paused for approval or input');
  });

  it('raf validate prints a YAML syntax error once, at the key, with the line and a caret', async () => {
    await writeFile(join(dir, 'agent.yaml'), 'name: x\nmodel:\n  id: m\n     provider: openai\n');
    const result = await cli(['validate', 'agent.yaml']);
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      [
        'error: agent.yaml:4:6 YAML syntax error: this key is indented deeper than the key above it (this line starts at column 6, the one above at column 3); keys of one mapping start at the same column',
        '  4 |      provider: openai',
        '    |      ^',
        '',
      ].join('\n'),
    );
  });
});
