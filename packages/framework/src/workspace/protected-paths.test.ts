import { readFileSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ITool, ScopePolicy } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplyPatchTool } from '../builtin-tools/apply-patch.js';
import { createFileTools } from '../builtin-tools/index.js';
import { PROTECTED_CASES } from '../test-support/protected-cases.js';
import { callTool, makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
import { protectedPathRules, protectionByName } from './protected-paths.js';
import { WorkspaceContextProvider } from './workspace-context-provider.js';

// Issue 10 items 10 and 11: protected paths under each policy, through the real tools.

const POLICIES = { allow: 'AllowAll', approve: 'ApproveOutside', deny: 'DenyOutside' } as const;

let fx: WorkspaceFixture;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
  await writeFile(join(fx.root, 'agent.yaml'), 'policy: deny\napi_key: sk-literal\n');
  await symlink(join(fx.root, 'agent.yaml'), join(fx.root, 'agent-link.yaml'));
  await mkdir(join(fx.root, 'sessions'));
  await writeFile(join(fx.root, 'sessions', 's0.json'), '{}');
  await mkdir(join(fx.root, '.raf'));
  await writeFile(join(fx.root, '.raf', 'governance.json'), '{}');
  await writeFile(join(fx.root, '.env'), 'OPENAI_API_KEY=sk-dotenv\n');
  await mkdir(join(fx.root, 'pkg'));
  await writeFile(join(fx.root, 'pkg', '.env.local'), 'TOKEN=nested\n');
  await mkdir(join(fx.root, '.git', 'hooks'), { recursive: true });
  await mkdir(join(fx.root, '.git', 'info'));
  await writeFile(join(fx.root, '.git', 'config'), '[core]\n');
  await mkdir(join(fx.root, 'plain'));
});
afterEach(() => fx.cleanup());

function tools(policy: ScopePolicy): Map<string, ITool> {
  const provider = new WorkspaceContextProvider({
    root: fx.root,
    name: 'ws',
    policy,
    protectedPaths: [
      { path: 'agent.yaml', reason: 'agent definition' },
      { path: 'sessions', reason: 'sessions' },
    ],
  });
  provider.addTools([...createFileTools(), createApplyPatchTool()]);
  return new Map(provider.tools.map((t) => [t.name, t]));
}

const rows = PROTECTED_CASES.flatMap((c) =>
  (['allow', 'approve', 'deny'] as const).map((p) => [c.name, p, c] as const),
);

describe('protected paths × policy (real temporary directories)', () => {
  it.each(rows)('%s — %s', async (_name, policy, c) => {
    const tool = tools(POLICIES[policy]).get(c.tool) as ITool;
    const outcome = await callTool(tool, c.args);
    const want = c.expect[policy];
    expect(outcome.asked, JSON.stringify(outcome.result)).toBe(want === 'asks');
    if (want !== 'asks') expect(outcome.result?.ok, JSON.stringify(outcome.result)).toBe(want === 'runs');
    if (want === 'error')
      expect(outcome.result?.error).toMatch(
        /^Protected path: '.*' \((agent definition|sessions|\.raf|\.env|\.git)\)$/,
      );
    if (want === 'asks') {
      // Executed without the approval it needs, the call is refused.
      const refused = await tool.execute(c.args, { signal: new AbortController().signal, callId: 'c' });
      expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/needs approval/) });
    }
    expect(await readFile(join(fx.root, 'agent.yaml'), 'utf8')).toBe('policy: deny\napi_key: sk-literal\n');
  });

  it('an approved write to a protected path runs under allow (the human decided)', async () => {
    const tool = tools('AllowAll').get('write_file') as ITool;
    const args = { path: '.env', content: 'A=1\n' };
    const result = await tool.execute(args, {
      signal: new AbortController().signal,
      callId: 'c',
      approved: true,
    });
    expect(result.ok).toBe(true);
    expect(await readFile(join(fx.root, '.env'), 'utf8')).toBe('A=1\n');
  });

  it('never returns protected files from a search', async () => {
    await writeFile(join(fx.root, 'plain', 'notes.md'), 'the policy is sk-free\n');
    for (const policy of ['AllowAll', 'ApproveOutside', 'DenyOutside'] as const) {
      const search = tools(policy).get('search_file') as ITool;
      const result = await callTool(search, { pattern: 'sk-|TOKEN|policy', directory: '.' });
      const data = (result.result?.data ?? { matches: [] }) as { matches: { file: string }[] };
      const files = data.matches.map((m) => m.file);
      // agent.yaml and .env match too, but are dropped.
      expect(files, policy).toEqual([join(fx.root, 'plain', 'notes.md')]);
    }
  });

  it('names the rules on a path below the root only', () => {
    expect(protectionByName('/a/.env')).toEqual({ reason: '.env', kind: 'secret' });
    expect(protectionByName('/a/.ENV.local')).toEqual({ reason: '.env', kind: 'secret' });
    expect(protectionByName('/a/.envrc')).toBeUndefined();
    expect(protectionByName('/a/env')).toBeUndefined();
    expect(protectionByName('/a/.raf/x/y')).toEqual({ reason: '.raf', kind: 'secret' });
    expect(protectionByName('/a/.git')).toEqual({ reason: '.git', kind: 'git' });
    expect(protectionByName('/a/.git/hooks')).toEqual({ reason: '.git', kind: 'git' });
    expect(protectionByName('/a/.git/modules/m/hooks/post-checkout')).toEqual({
      reason: '.git',
      kind: 'git',
    });
    expect(protectionByName('/a/.git/modules/m/config')).toEqual({ reason: '.git', kind: 'git' });
    expect(protectionByName('/a/.git/objects/ab/cdef')).toBeUndefined();
    expect(protectionByName('/a/config')).toBeUndefined();
  });

  it('lists every case in the framework README', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const table = readme.split('\n').map((line) => line.split('|').map((cell) => cell.trim()));
    for (const c of PROTECTED_CASES) {
      const row = table.find((cells) => cells[1] === c.name);
      expect(row, c.name).toEqual([
        '',
        c.name,
        `\`${c.tool}\``,
        c.expect.allow,
        c.expect.approve,
        c.expect.deny,
        '',
      ]);
    }
  });

  it('describes the rules per policy for explain', () => {
    const rules = protectedPathRules({
      root: '/w',
      name: 'ws',
      policy: 'DenyOutside',
      protectedPaths: [{ path: '/w/agent.yaml', reason: 'agent definition' }],
    });
    expect(rules).toEqual([
      { path: '/w/agent.yaml', reason: 'agent definition', reads: 'refused', writes: 'refused' },
      { path: '**/.raf/', reason: '.raf', reads: 'refused', writes: 'refused' },
      { path: '**/.env', reason: '.env', reads: 'refused', writes: 'refused' },
      { path: '**/.env.*', reason: '.env', reads: 'refused', writes: 'refused' },
      { path: '**/.git/hooks/', reason: '.git', reads: 'allowed', writes: 'refused' },
      { path: '**/.git/config', reason: '.git', reads: 'allowed', writes: 'refused' },
    ]);
  });
});
