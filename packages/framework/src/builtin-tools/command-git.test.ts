import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ITool } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool } from '../test-support/workspace-fixture.js';
import { withGitConfig } from '../workspace/operations/command-environment.js';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';
import { createRunCommandTool } from './run-command.js';

// Finding 2: under `approve` with `allowCommands: ["git status"]`, the model wrote a folder shaped
// like a bare repository (HEAD, objects/, refs/, a config with `core.fsmonitor`) and ran the
// allowed `git status` in it: git discovered it and ran the fsmonitor command.

function gitVersion(): number[] | undefined {
  try {
    const out = execFileSync('git', ['--version'], { encoding: 'utf8' });
    return /(\d+)\.(\d+)/.exec(out)?.slice(1).map(Number);
  } catch {
    return undefined;
  }
}
const version = gitVersion();
// `safe.bareRepository` is honoured from git 2.38 on.
const hasGit =
  version !== undefined && ((version[0] ?? 0) > 2 || ((version[0] ?? 0) === 2 && (version[1] ?? 0) >= 38));

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'raf-git-')));
});
afterEach(() => rm(root, { recursive: true, force: true }));

function runCommand(env?: Record<string, string>): ITool {
  const provider = new WorkspaceContextProvider({
    root,
    name: 'ws',
    policy: 'ApproveOutside',
    properties: { allowCommands: ['git status', 'git config'], ...(env && { env }) },
  }).addTool(createRunCommandTool());
  return provider.tools[0] as ITool;
}

describe('git in run_command refuses a bare repository it discovers (finding 2)', () => {
  it.runIf(hasGit)('an allowed `git status` in a planted bare-shaped folder runs no fsmonitor', async () => {
    const marker = join(root, 'PWNED');
    await mkdir(join(root, 'evil', 'objects'), { recursive: true });
    await mkdir(join(root, 'evil', 'refs'));
    await writeFile(join(root, 'evil', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(
      join(root, 'evil', 'config'),
      `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "echo x > '${marker}'; false"\n`,
    );
    const outcome = await callTool(runCommand(), { command: 'git status', working_dir: 'evil' });
    expect(outcome.asked).toBe(false);
    const data = outcome.result?.data as { exit_code: number; stderr: string };
    expect(data.exit_code).not.toBe(0);
    expect(data.stderr).toMatch(/cannot use bare repository/);
    expect(existsSync(marker)).toBe(false);
  });

  it.runIf(hasGit)(
    'a normal repository still works, and the user’s own GIT_CONFIG_* entries are kept',
    async () => {
      execFileSync('git', ['init', '-q', root]);
      await writeFile(join(root, 'a.txt'), 'a\n');
      const env = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'Ada' };
      const tool = runCommand(env);
      const status = await callTool(tool, { command: 'git status --porcelain' });
      expect(status.asked).toBe(false);
      expect(status.result?.data).toMatchObject({ exit_code: 0, stdout: '?? a.txt\n' });
      const name = await callTool(tool, { command: 'git config user.name' });
      expect(name.result?.data).toMatchObject({ exit_code: 0, stdout: 'Ada\n' });
      const safe = await callTool(tool, { command: 'git config safe.bareRepository' });
      expect(safe.result?.data).toMatchObject({ exit_code: 0, stdout: 'explicit\n' });
    },
  );

  it('appends after the entries the environment has; a bad count is replaced', () => {
    expect(withGitConfig({ GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_1: 'safe.bareRepository' })).toMatchObject({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_1: 'safe.bareRepository',
      GIT_CONFIG_KEY_2: 'safe.bareRepository',
      GIT_CONFIG_VALUE_2: 'explicit',
    });
    expect(withGitConfig({ GIT_CONFIG_COUNT: 'lots' })).toEqual({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'safe.bareRepository',
      GIT_CONFIG_VALUE_0: 'explicit',
    });
  });
});
