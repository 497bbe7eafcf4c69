// Issue 10 items 10 and 11: what each policy does with protected paths. The fixture
// (`protected-paths.test.ts`) has agent.yaml, sessions/, .raf/, .env, pkg/.env.local, .git/, and
// srv/server.mjs (what the definition executes: readable, never written).
import type { Outcome, PolicyName } from './policy-cases.js';
export interface ProtectedCase {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  expect: Record<PolicyName, Outcome>;
}

const SECRET_READ = { allow: 'error', approve: 'error', deny: 'error' } as const;
const SECRET_WRITE = { allow: 'asks', approve: 'error', deny: 'error' } as const;
const GIT_WRITE = { allow: 'runs', approve: 'asks', deny: 'error' } as const;
const FREE = { allow: 'runs', approve: 'runs', deny: 'runs' } as const;

/** Every case; the framework README's "Protected paths" table lists them by `name`. */
export const PROTECTED_CASES: ProtectedCase[] = [
  { name: 'read the agent definition', tool: 'read_file', args: { path: 'agent.yaml' }, expect: SECRET_READ },
  {
    name: 'rewrite the agent definition',
    tool: 'write_file',
    args: { path: 'agent.yaml', content: 'policy: allow\n' },
    expect: SECRET_WRITE,
  },
  {
    name: 'edit the agent definition',
    tool: 'edit_file',
    args: { path: 'agent.yaml', old_str: 'deny', new_str: 'allow' },
    expect: SECRET_WRITE,
  },
  {
    name: 'the agent definition through a link',
    tool: 'read_file',
    args: { path: 'agent-link.yaml' },
    expect: SECRET_READ,
  },
  {
    name: 'move the agent definition away',
    tool: 'move_file',
    args: { from: 'agent.yaml', to: 'old.yaml' },
    expect: SECRET_WRITE,
  },
  {
    name: 'move a folder onto the agent definition',
    tool: 'move_file',
    args: { from: 'plain', to: 'agent.yaml' },
    expect: SECRET_WRITE,
  },
  { name: 'list the sessions folder', tool: 'list_files', args: { path: 'sessions' }, expect: SECRET_READ },
  {
    name: 'write a session file',
    tool: 'write_file',
    args: { path: 'sessions/s1.json', content: '{}' },
    expect: SECRET_WRITE,
  },
  {
    name: 'read `.raf/governance.json`',
    tool: 'read_file',
    args: { path: '.raf/governance.json' },
    expect: SECRET_READ,
  },
  {
    name: 'create `.raf/` in a subfolder',
    tool: 'make_directory',
    args: { path: 'plain/.raf' },
    expect: SECRET_WRITE,
  },
  { name: 'read `.env`', tool: 'read_file', args: { path: '.env' }, expect: SECRET_READ },
  { name: 'read `pkg/.env.local`', tool: 'read_file', args: { path: 'pkg/.env.local' }, expect: SECRET_READ },
  { name: 'inspect `.env`', tool: 'inspect_file', args: { path: '.env' }, expect: SECRET_READ },
  {
    name: 'write `.env.production`',
    tool: 'write_file',
    args: { path: '.env.production', content: 'A=1' },
    expect: SECRET_WRITE,
  },
  {
    name: 'remove a folder holding `.env`',
    tool: 'remove_path',
    args: { path: 'pkg' },
    expect: SECRET_WRITE,
  },
  {
    name: 'patch `.env`',
    tool: 'apply_patch',
    args: { patch: '--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-OPENAI_API_KEY=sk-dotenv\n+X=1\n' },
    expect: SECRET_WRITE,
  },
  { name: 'read `.git/config`', tool: 'read_file', args: { path: '.git/config' }, expect: FREE },
  {
    name: 'write `.git/config`',
    tool: 'write_file',
    args: { path: '.git/config', content: '[core]\n\tfsmonitor = evil\n' },
    expect: GIT_WRITE,
  },
  {
    name: 'write `.git/hooks/pre-commit`',
    tool: 'write_file',
    args: { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' },
    expect: GIT_WRITE,
  },
  { name: 'remove `.git`', tool: 'remove_path', args: { path: '.git' }, expect: GIT_WRITE },
  {
    name: 'write `.git/info/exclude`',
    tool: 'write_file',
    args: { path: '.git/info/exclude', content: 'x' },
    expect: GIT_WRITE,
  },
  // Each points git at another folder's config (`core.fsmonitor` there runs at the next `git status`).
  {
    name: 'write `.git/commondir`',
    tool: 'write_file',
    args: { path: '.git/commondir', content: '../plain\n' },
    expect: GIT_WRITE,
  },
  {
    name: 'create `.git/worktrees/w`',
    tool: 'make_directory',
    args: { path: '.git/worktrees/w' },
    expect: GIT_WRITE,
  },
  {
    name: 'edit `.git/config`',
    tool: 'edit_file',
    args: { path: '.git/config', old_str: '[core]', new_str: '[core]\n\tfsmonitor = evil' },
    expect: GIT_WRITE,
  },
  {
    name: 'patch `.git/HEAD`',
    tool: 'apply_patch',
    args: { patch: '--- /dev/null\n+++ b/.git/HEAD\n@@ -0,0 +1 @@\n+ref: refs/heads/evil\n' },
    expect: GIT_WRITE,
  },
  {
    name: 'write a `.git` file in a subfolder',
    tool: 'write_file',
    args: { path: 'plain/.git', content: 'gitdir: ../srv\n' },
    expect: GIT_WRITE,
  },
  {
    name: 'write `plain/.git/config`',
    tool: 'write_file',
    args: { path: 'plain/.git/config', content: '[core]\n\tfsmonitor = evil\n' },
    expect: GIT_WRITE,
  },
  {
    name: 'move a file into `.git/`',
    tool: 'move_file',
    args: { from: 'plain/notes.md', to: '.git/commondir' },
    expect: GIT_WRITE,
  },
  // What the definition executes or loads (`readable: true`): `srv/server.mjs`, a stdio server's script.
  { name: 'read the server script', tool: 'read_file', args: { path: 'srv/server.mjs' }, expect: FREE },
  {
    name: 'rewrite the server script',
    tool: 'write_file',
    args: { path: 'srv/server.mjs', content: 'evil()\n' },
    expect: SECRET_WRITE,
  },
  {
    name: 'patch the server script',
    tool: 'apply_patch',
    args: { patch: '--- a/srv/server.mjs\n+++ b/srv/server.mjs\n@@ -1 +1 @@\n-serve()\n+evil()\n' },
    expect: SECRET_WRITE,
  },
  {
    name: 'move the server script away',
    tool: 'move_file',
    args: { from: 'srv/server.mjs', to: 'plain/server.mjs' },
    expect: SECRET_WRITE,
  },
  {
    name: 'move its folder away',
    tool: 'move_file',
    args: { from: 'srv', to: 'srv2' },
    expect: SECRET_WRITE,
  },
  { name: 'remove its folder', tool: 'remove_path', args: { path: 'srv' }, expect: SECRET_WRITE },
  {
    name: 'a new file beside the script',
    tool: 'write_file',
    args: { path: 'srv/notes.md', content: 'x' },
    expect: FREE,
  },
  {
    name: 'an ordinary file',
    tool: 'write_file',
    args: { path: 'plain/notes.md', content: 'x' },
    expect: FREE,
  },
];
