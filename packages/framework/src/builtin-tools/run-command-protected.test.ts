import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ITool, ScopePolicy } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool } from '../test-support/workspace-fixture.js';
import { createLocalToolOperations } from '../workspace/operations/local-tool-operations.js';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';
import { createRunCommandTool } from './run-command.js';

// Finding 5: with `root: .` and `allowCommands: [grep]` under approve, `read_file .env` was
// refused but `grep -r sk- .` ran unasked and printed `.env`, the sessions and the agent file.
// An allowed command given a folder that holds what the file tools refuse to read now asks
// (approve), or is refused when it would run unconfined (deny without bubblewrap).

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'raf-cmd-protected-')));
  await writeFile(join(root, 'agent.yaml'), 'api_key: sk-in-agent-file\n');
  await mkdir(join(root, 'pkg'));
  await writeFile(join(root, 'pkg', '.env.local'), 'TOKEN=sk-dotenv\n');
  await mkdir(join(root, 'data', 'runs'), { recursive: true });
  await writeFile(join(root, 'data', 'runs', 's1.json'), '{"key":"sk-session"}\n');
  await mkdir(join(root, 'src', '.git'), { recursive: true });
  await writeFile(join(root, 'src', 'a.txt'), 'sk-nothing-secret\n');
  await writeFile(join(root, 'src', '.git', 'config'), '[core]\n');
  await mkdir(join(root, 'cache', '.raf'), { recursive: true });
  await mkdir(join(root, 'linked'));
  await symlink(join(root, 'agent.yaml'), join(root, 'linked', 'agent-link'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

function runCommand(policy: ScopePolicy, allowCommands = ['grep', 'tar', 'find', 'ls', 'cat']): ITool {
  // No bubblewrap at that path: under deny the command would run unconfined.
  const operations = createLocalToolOperations({ bubblewrapPath: join(root, 'no-bwrap') });
  const provider = new WorkspaceContextProvider(
    {
      root,
      name: 'ws',
      policy,
      properties: { allowCommands },
      protectedPaths: [
        { path: 'agent.yaml', reason: 'agent definition' },
        { path: 'data/runs', reason: 'sessions' },
      ],
    },
    { operations },
  ).addTool(createRunCommandTool());
  return provider.tools[0] as ITool;
}

async function whyAsked(tool: ITool, args: Record<string, unknown>): Promise<string | undefined> {
  const outcome = await callTool(tool, args);
  if (!outcome.asked) return undefined;
  // Executed without the approval, the refusal carries the reason.
  const refused = await tool.execute(args, { signal: new AbortController().signal, callId: 'c' });
  return refused.error;
}

describe('an allowed command given a folder holding unreadable protected paths (finding 5)', () => {
  it.each([
    [
      'grep -r sk- .',
      '.',
      /the command's folder holds the protected path '.*agent\.yaml' \(agent definition\)/,
    ],
    ['tar cf - .', '.', /agent definition/],
    ['find', '.', /agent definition/],
    ['ls', 'pkg', /holds the protected path '.*pkg\/\.env\.local' \(\.env\)/],
    ['ls', 'data', /holds the protected path '.*data\/runs' \(sessions\)/],
    ['grep -r sk- ../pkg', 'src', /'\.\.\/pkg' holds the protected path '.*\.env\.local' \(\.env\)/],
    ['find ../cache', 'src', /'\.\.\/cache' holds the protected path '.*cache\/\.raf' \(\.raf\)/],
    ['grep -r sk- linked', 'src/..', /agent definition/],
    ['ls', 'linked', /holds the protected path '.*agent-link' \(agent definition\)/],
  ])('approve: `%s` in %s asks, naming the path', async (command, dir, why) => {
    const reason = await whyAsked(runCommand('ApproveOutside'), { command, working_dir: dir });
    expect(reason).toMatch(/needs approval/);
    expect(reason).toMatch(why);
    // The reason can reach the model: it names the path from the root, not where the files live.
    expect(reason).not.toMatch(/holds the protected path '\//);
  });

  it('approve: a folder holding only read-only paths (`.git/config`) or nothing protected runs unasked', async () => {
    const tool = runCommand('ApproveOutside');
    for (const command of ['grep -r sk- .', 'find', 'ls -a', 'cat a.txt']) {
      const outcome = await callTool(tool, { command, working_dir: 'src' });
      expect(outcome.asked, command).toBe(false);
      expect(outcome.result?.ok, command).toBe(true);
    }
    const grep = await callTool(tool, { command: 'grep -r sk- .', working_dir: 'src' });
    expect(grep.result?.data).toMatchObject({ exit_code: 0, stdout: './a.txt:sk-nothing-secret\n' });
  });

  it('deny without bubblewrap: refused, naming the protected path; a plain folder runs', async () => {
    const tool = runCommand('DenyOutside');
    const refused = await callTool(tool, { command: 'grep -r sk- .' });
    expect(refused.result).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^Refused: the command's folder holds the protected path '.*agent\.yaml' \(agent definition\), and without bubblewrap/,
      ),
    });
    // Any command, allowed or not, read as sh would: its arguments are checked too.
    const named = await callTool(tool, { command: 'cat ../pkg/.env.local | wc -c', working_dir: 'src' });
    expect(named.result?.error).toMatch(/'\.\.\/pkg\/\.env\.local' is a protected path \(\.env\)/);
    const plain = await callTool(tool, { command: 'grep -r sk- .', working_dir: 'src' });
    expect(plain.result).toMatchObject({ ok: true, data: { exit_code: 0, confinement: 'none' } });
  });

  it('the quickstart shape (a root with plain files, allowCommands [ls, cat]) runs unasked', async () => {
    const workspace = join(root, 'src');
    const provider = new WorkspaceContextProvider({
      root: workspace,
      name: 'ws',
      policy: 'ApproveOutside',
      properties: { allowCommands: ['ls', 'cat'] },
      protectedPaths: [{ path: join(root, 'agent.yaml'), reason: 'agent definition' }],
    }).addTool(createRunCommandTool());
    const tool = provider.tools[0] as ITool;
    for (const command of ['ls', 'cat a.txt', 'ls -la .']) {
      const outcome = await callTool(tool, { command });
      expect(outcome.asked, command).toBe(false);
      expect(outcome.result?.ok, command).toBe(true);
    }
  });
});
