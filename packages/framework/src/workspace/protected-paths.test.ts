import { readFileSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ITool, ScopePolicy } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplyPatchTool } from '../builtin-tools/apply-patch.js';
import { createFileTools } from '../builtin-tools/index.js';
import { PROTECTED_CASES } from '../test-support/protected-cases.js';
import { callTool, makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
import { bubblewrapArguments, pinnedFolders } from './operations/bubblewrap-arguments.js';
import { LocalFsOperations } from './operations/local-fs-operations.js';
import { protectedPathRules, protectionByName, protectionIndex } from './protected-paths.js';
import { sandboxProtection } from './sandbox-protection.js';
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
  await writeFile(join(fx.root, 'plain', 'notes.md'), 'notes\n');
  await mkdir(join(fx.root, 'srv'));
  await writeFile(join(fx.root, 'srv', 'server.mjs'), 'serve()\n');
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
      { path: 'srv/server.mjs', reason: "MCP server 'notes'", readable: true },
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
        /^Protected path: '.*' \((agent definition|sessions|\.raf|\.env|\.git|MCP server 'notes')\)$/,
      );
    if (want === 'asks') {
      // Executed without the approval it needs, the call is refused.
      const refused = await tool.execute(c.args, { signal: new AbortController().signal, callId: 'c' });
      expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/needs approval/) });
    }
    expect(await readFile(join(fx.root, 'agent.yaml'), 'utf8')).toBe('policy: deny\napi_key: sk-literal\n');
    expect(await readFile(join(fx.root, 'srv', 'server.mjs'), 'utf8')).toBe('serve()\n');
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
    // Everything below `.git`, and a `.git` file anywhere (finding 1: `commondir` pointed git at
    // a planted folder whose config ran `core.fsmonitor`).
    for (const path of [
      'objects/ab/cdef',
      'commondir',
      'gitdir',
      'info/exclude',
      'worktrees/w/gitdir',
      'HEAD',
    ])
      expect(protectionByName(`/a/.git/${path}`), path).toEqual({ reason: '.git', kind: 'git' });
    expect(protectionByName('/a/sub/deep/.GIT')).toEqual({ reason: '.git', kind: 'git' });
    expect(protectionByName('/a/.gitignore')).toBeUndefined();
    expect(protectionByName('/a/.git/.env')).toEqual({ reason: '.env', kind: 'secret' });
    expect(protectionByName('/a/.git/x/.raf/y')).toEqual({ reason: '.raf', kind: 'secret' });
    expect(protectionByName('/a/.github/workflows/ci.yml')).toBeUndefined();
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
      { path: '**/.git', reason: '.git', reads: 'allowed', writes: 'refused' },
      { path: '**/.git/**', reason: '.git', reads: 'allowed', writes: 'refused' },
    ]);
  });
});

describe('what the definition executes or loads (readable protected paths)', () => {
  it('is listed for explain as readable and never written (asks under allow)', () => {
    const loaded = { path: '/w/srv/server.mjs', reason: "MCP server 'notes'", readable: true };
    for (const [policy, writes] of [
      ['AllowAll', 'ask'],
      ['ApproveOutside', 'refused'],
      ['DenyOutside', 'refused'],
    ] as const)
      expect(protectedPathRules({ root: '/w', name: 'ws', policy, protectedPaths: [loaded] })[0]).toEqual({
        path: '/w/srv/server.mjs',
        reason: "MCP server 'notes'",
        reads: 'allowed',
        writes,
      });
  });

  it('added after the tools were bound (an entry built later), it is protected for them too', async () => {
    const provider = new WorkspaceContextProvider({ root: fx.root, name: 'ws', policy: 'DenyOutside' });
    provider.addTools(createFileTools());
    const write = provider.tools.find((t) => t.name === 'write_file') as ITool;
    provider.protect([{ path: 'srv/server.mjs', reason: 'OpenAPI spec', readable: true }]);
    provider.protect([{ path: join(fx.root, 'srv/server.mjs'), reason: 'again', readable: true }]);
    const outcome = await callTool(write, { path: 'srv/server.mjs', content: 'evil()\n' });
    expect(outcome.result).toMatchObject({
      ok: false,
      error: "Protected path: 'srv/server.mjs' (OpenAPI spec)",
    });
    expect(provider.protectedPaths.filter((r) => r.path.endsWith('server.mjs'))).toHaveLength(1);
  });

  it('is mounted read-only in the sandbox, with the folders above it pinned (real folders)', async () => {
    const index = await protectionIndex(
      {
        root: fx.root,
        name: 'ws',
        policy: 'DenyOutside',
        protectedPaths: [
          { path: join(fx.root, 'srv/server.mjs'), reason: 'MCP server', readable: true },
          { path: join(fx.root, 'agent.yaml'), reason: 'agent definition' },
        ],
      },
      new LocalFsOperations(),
    );
    const found = await sandboxProtection([fx.root], [], index);
    expect(found.readOnly).toContain(join(fx.root, 'srv/server.mjs'));
    expect(found.hidden.map((h) => h.path)).toContain(join(fx.root, 'agent.yaml'));
    expect(found.hidden.map((h) => h.path)).not.toContain(join(fx.root, 'srv/server.mjs'));
    const args = bubblewrapArguments(
      { cwd: fx.root },
      { writableRoots: [fx.root], network: false, readOnly: found.readOnly, hidden: found.hidden },
      { systemMounts: [], userNamespace: false },
    );
    const at = (...group: string[]) => args.findIndex((_, i) => group.every((w, k) => args[i + k] === w));
    const root = at('--bind', fx.root, fx.root);
    const pin = at('--bind', join(fx.root, 'srv'), join(fx.root, 'srv'));
    const script = at('--ro-bind', join(fx.root, 'srv/server.mjs'), join(fx.root, 'srv/server.mjs'));
    // The root, then `srv` bound onto itself (a mount point: `mv srv srv2` fails), then the script.
    expect(root).toBeGreaterThanOrEqual(0);
    expect(pin).toBeGreaterThan(root);
    expect(script).toBeGreaterThan(pin);
  });

  it('pins every folder between a root and a protected path, outermost first, once', () => {
    expect(pinnedFolders(['/w/a/b/c.mjs', '/w/a/d/.env', '/w/top.yaml', '/x/y/z'], ['/w'])).toEqual([
      '/w/a',
      '/w/a/b',
      '/w/a/d',
    ]);
  });
});
