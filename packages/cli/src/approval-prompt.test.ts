import { execFileSync } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolApprovalRequestUpdate } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeRequest, PREVIEW_MAX_BYTES, previewChange } from './approval-prompt.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-prompt-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const write = (target: string, content: string): ToolApprovalRequestUpdate => ({
  type: 'tool-approval-request',
  callId: 'c1',
  name: 'write_file',
  arguments: { path: target, content },
  description: 'write',
  resolvedTarget: target,
});

describe('the approval prompt', () => {
  it('shows a diff of a regular file', async () => {
    const file = join(dir, 'a.txt');
    await writeFile(file, 'old\n');
    expect(await previewChange(write(file, 'new\n'))).toContain('-old\n+new');
  });

  it('does not wait on a FIFO named as the target', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    expect(await previewChange(write(fifo, 'x'))).toBe('(no preview: the target is not a regular file)');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('does not read a device or a huge file into memory', async () => {
    const before = process.memoryUsage().rss;
    expect(await previewChange(write('/dev/zero', 'x'))).toBe(
      '(no preview: the target is not a regular file)',
    );
    const big = join(dir, 'big.bin');
    await writeFile(big, '');
    execFileSync('truncate', ['-s', '10G', big]);
    expect(await previewChange(write(big, 'x'))).toBe(
      `(no preview: the target holds ${10 * 1024 ** 3} bytes)`,
    );
    expect(await previewChange(write(join(dir, 'new.txt'), 'y'.repeat(PREVIEW_MAX_BYTES + 1)))).toBe(
      `(no preview: the new content holds ${PREVIEW_MAX_BYTES + 1} bytes)`,
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it('escapes terminal sequences in the name, the target, the arguments and the diff', async () => {
    const file = join(dir, 'a.txt');
    await writeFile(file, 'old\n');
    const shown = await describeRequest({
      ...write(file, 'new\u001b[2K\recho harmless\n'),
      resolvedTarget: `${file}\u001b[1A\u001b[2Kecho harmless`,
    });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(shown).toContain('\\e[1A\\e[2Kecho harmless');
  });
});
