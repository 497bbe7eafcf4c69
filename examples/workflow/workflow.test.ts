import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryIO, main } from '@raf/cli';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));

async function run(args: string[]) {
  const io = createMemoryIO({ cwd: here });
  const code = await main(args, io.io);
  return { code, out: io.out(), err: io.err() };
}

describe('the workflow examples', () => {
  it('greeting and conditional run offline with the answers their actions define', async () => {
    expect(await run(['run', 'greeting.yaml', '-i', 'Ada'])).toMatchObject({ code: 0, out: 'Hello, Ada!\n' });
    expect(await run(['run', 'conditional.yaml', '-i', '20'])).toMatchObject({
      code: 0,
      out: 'Welcome, adult user!\n',
    });
    expect(await run(['run', 'conditional.yaml', '-i', '9'])).toMatchObject({
      code: 0,
      out: 'Welcome, young user!\n',
    });
  });

  it('survey pauses for its question (exit 3) and resumes with --answer', async () => {
    const sessions = await mkdtemp(join(tmpdir(), 'raf-example-wf-'));
    try {
      const common = ['--session', 'survey1', '--sessions-dir', sessions];
      const paused = await run(['run', 'survey.yaml', '-i', 'Ada', ...common]);
      expect(paused.code).toBe(3);
      expect(paused.err).toContain('Which languages do you use');
      const done = await run(['run', 'survey.yaml', '--answer', 'TypeScript, Rust', ...common]);
      expect(done).toMatchObject({ code: 0, out: '1. TypeScript\n2. Rust\nThanks, that makes 2.\n' });
    } finally {
      await rm(sessions, { recursive: true, force: true });
    }
  });
});
