import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { symbolicLinkOnTheWay } from './link-on-the-way.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-link-way-'));
  await mkdir(join(dir, 'agent', 'docs', 'real'), { recursive: true });
  await mkdir(join(dir, 'private'));
  await symlink(join(dir, 'private'), join(dir, 'agent', 'docs', 'handbook'));
  await symlink(join(dir, 'private'), join(dir, 'outside-link'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('symbolicLinkOnTheWay', () => {
  it('finds a link at or above the named path inside the agent folder, and only the path itself outside', async () => {
    const base = join(dir, 'agent');
    const link = join(base, 'docs', 'handbook');
    expect(await symbolicLinkOnTheWay(base, './docs/handbook')).toBe(link);
    expect(await symbolicLinkOnTheWay(base, 'docs/handbook/sub/page.md')).toBe(link);
    expect(await symbolicLinkOnTheWay(base, 'docs/real')).toBeUndefined();
    expect(await symbolicLinkOnTheWay(base, '.')).toBeUndefined();
    expect(await symbolicLinkOnTheWay(base, 'docs/missing/x')).toBeUndefined();
    expect(await symbolicLinkOnTheWay(base, join(dir, 'outside-link'))).toBe(join(dir, 'outside-link'));
    expect(await symbolicLinkOnTheWay(base, join(dir, 'private'))).toBeUndefined();
    // The agent's folder itself may be reached through a link (a user's shortcut to the project).
    expect(await symbolicLinkOnTheWay(link, '.')).toBeUndefined();
  });
});
