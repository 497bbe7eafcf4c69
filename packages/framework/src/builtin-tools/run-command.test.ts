import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ITool, ToolResult } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentSession } from '../sessions/agent-session.js';
import { makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
import { commandEnvironment } from '../workspace/operations/command-environment.js';
import { createLocalToolOperations } from '../workspace/operations/local-tool-operations.js';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';
import { isCommandAllowed } from './command-allowlist.js';
import { createRunCommandTool } from './run-command.js';

let fx: WorkspaceFixture;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
});
afterEach(() => fx.cleanup());

function commandTool(
  policy: 'AllowAll' | 'ApproveOutside' | 'DenyOutside',
  options: { bwrap?: string; network?: boolean } = {},
) {
  const operations = createLocalToolOperations(options.bwrap ? { bubblewrapPath: options.bwrap } : {});
  const provider = new WorkspaceContextProvider(
    {
      root: fx.root,
      name: 'ws',
      policy,
      properties: { allowCommands: ['echo', 'git status'], network: options.network ?? false },
    },
    { operations },
  ).addTool(createRunCommandTool());
  return { provider, tool: provider.tools[0] as ITool };
}

function exec(
  tool: ITool,
  args: Record<string, unknown>,
  signal = new AbortController().signal,
): Promise<ToolResult> {
  return tool.execute(args, { signal, callId: 'c' });
}

describe('run_command', () => {
  it('runs in the workspace root with the info level by default; a non-zero exit is success', async () => {
    const { tool } = commandTool('AllowAll');
    const result = await exec(tool, { command: 'pwd; echo oops >&2; exit 3' });
    expect(result).toEqual({
      ok: true,
      data: {
        exit_code: 3,
        stdout: `${fx.root}\n`,
        stdout_truncated: false,
        stdout_bytes_total: fx.root.length + 1,
        stderr: 'oops\n',
        stderr_truncated: false,
        stderr_bytes_total: 5,
        scope: 'workspace',
      },
    });
  });

  it('shapes output by level: error, warning, all', async () => {
    const { tool } = commandTool('AllowAll');
    const script = 'echo "WARN: a"; echo fine; echo "warning b"; echo err >&2';
    expect((await exec(tool, { command: script, output_level: 'error' })).data).toEqual({
      exit_code: 0,
      stderr: 'err\n',
      stderr_truncated: false,
      stderr_bytes_total: 4,
      scope: 'workspace',
    });
    expect((await exec(tool, { command: script, output_level: 'warning' })).data).toMatchObject({
      stdout_warnings: 'WARN: a\nwarning b',
      warning_count: 2,
    });
    expect((await exec(tool, { command: script, output_level: 'all' })).data).toMatchObject({
      stdout: 'WARN: a\nfine\nwarning b\n',
      stdout_truncated: false,
    });
  });

  it('keeps the tail of long output with the upstream markers and a truncation note', async () => {
    const { tool } = commandTool('AllowAll');
    const data = (await exec(tool, { command: "head -c 600000 /dev/zero | tr '\\0' a; echo END" }))
      .data as Record<string, string | number | boolean>;
    expect(data.stdout_truncated).toBe(true);
    expect(data.stdout_bytes_total).toBe(600004);
    expect(String(data.stdout)).toMatch(/^\.\.\.\[omitted 88004 bytes\]\na+END\n$/);
    expect(data.truncation_note).toMatch(/^Output was truncated\. Use output_level="error"/);
    const all = (await exec(tool, { command: 'head -c 1000100 /dev/zero | tr "\\0" b', output_level: 'all' }))
      .data as Record<string, string>;
    expect(all.stdout?.endsWith('...[truncated, 1000100 bytes total]')).toBe(true);
  });

  it('kills the command and its children on timeout and on cancel', async () => {
    const { tool } = commandTool('AllowAll');
    const started = Date.now();
    expect(await exec(tool, { command: 'sleep 30 & sleep 30', timeout_secs: 1 })).toEqual({
      ok: false,
      error: 'timed out after 1 seconds',
    });
    expect(Date.now() - started).toBeLessThan(5000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled by test')), 100);
    await expect(exec(tool, { command: 'sleep 30' }, controller.signal)).rejects.toThrow();
  });

  it('checks working_dir against the workspace under deny', async () => {
    const { tool } = commandTool('DenyOutside');
    expect(await exec(tool, { command: 'pwd', working_dir: fx.outside })).toEqual({
      ok: false,
      error: `Access denied: '${fx.outside}' is outside workspace 'ws'`,
    });
  });
});

describe('the command environment, under every policy (issue 10 item 4)', () => {
  const SECRETS = {
    OPENAI_API_KEY: 'sk-parent-1',
    GITHUB_TOKEN: 'ghp-parent-2',
    DB_PASSWORD: 'pw-parent-3',
    aws_secret: 'aws-parent-4',
  };

  it.each(['AllowAll', 'ApproveOutside', 'DenyOutside'] as const)(
    '%s: the allowlist and env:, never a key, token, secret or password unless named',
    async (policy) => {
      const saved = { ...process.env };
      Object.assign(process.env, SECRETS, { LC_ALL: 'C.UTF-8', RANDOM_THING: 'x' });
      try {
        const run = async (env: Record<string, string>) => {
          const provider = new WorkspaceContextProvider({
            root: fx.root,
            name: 'ws',
            policy,
            properties: { allowCommands: ['env'], env },
          }).addTool(createRunCommandTool());
          const tool = provider.tools[0] as ITool;
          expect(await tool.requiresApproval?.({ command: 'env' })).toBe(false);
          const result = await exec(tool, { command: 'env', output_level: 'all' });
          return String((result.data as { stdout: string }).stdout);
        };
        const out = await run({ FOO: 'bar' });
        for (const [name, value] of Object.entries(SECRETS)) {
          expect(out).not.toContain(name);
          expect(out).not.toContain(value);
        }
        expect(out).not.toContain('RANDOM_THING');
        expect(out).toMatch(/^FOO=bar$/m);
        expect(out).toMatch(/^LC_ALL=C\.UTF-8$/m);
        expect(out).toMatch(/^PATH=/m);
        expect(out).toMatch(
          new RegExp(`^HOME=${policy === 'DenyOutside' ? fx.root : process.env.HOME}$`, 'm'),
        );
        // Named explicitly in the workspace's env: (`env: {OPENAI_API_KEY: $OPENAI_API_KEY}`), it passes.
        expect(await run({ OPENAI_API_KEY: 'sk-explicit' })).toMatch(/^OPENAI_API_KEY=sk-explicit$/m);
      } finally {
        for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
        Object.assign(process.env, saved);
      }
    },
  );

  // Every command's git refuses a bare repository it finds by itself (see command-git.test.ts).
  const GIT = {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'safe.bareRepository',
    GIT_CONFIG_VALUE_0: 'explicit',
  };

  it('drops secret-looking names in any case, even from the allowlist', () => {
    expect(
      commandEnvironment({
        PATH: '/bin',
        LC_TOKEN: 'x',
        lc_all: 'y',
        api_key: 'k',
        TERM: 'xterm',
        TZ: 'UTC',
      }),
    ).toEqual({ PATH: '/bin', TERM: 'xterm', TZ: 'UTC', ...GIT });
    expect(commandEnvironment({ HOME: '/h' }, { home: '/w', explicit: { A_SECRET: 's' } })).toEqual({
      HOME: '/w',
      A_SECRET: 's',
      ...GIT,
    });
  });
});

describe('allowCommands under approve', () => {
  it('matches each sub-command on word boundaries', () => {
    const allowed = ['echo', 'git status'];
    expect(isCommandAllowed('echo hi && git status -s | echo x', allowed)).toBe(true);
    expect(isCommandAllowed('git statusx', allowed)).toBe(false);
    expect(isCommandAllowed('echo hi; rm -rf ~', allowed)).toBe(false);
    expect(isCommandAllowed('echo $(rm -rf ~)', allowed)).toBe(false);
    expect(isCommandAllowed('echo `id`', allowed)).toBe(false);
    expect(isCommandAllowed('echo hi > /etc/passwd', allowed)).toBe(false);
    expect(isCommandAllowed('echo hi\nrm -rf ~', allowed)).toBe(false);
    expect(isCommandAllowed('echo "unterminated', allowed)).toBe(false);
    expect(isCommandAllowed('echo hi', [])).toBe(false);
  });

  it('reads `#` as sh does: `echo hi#; touch M` asks (issue 10 item 5)', async () => {
    expect(isCommandAllowed('echo hi#; touch M', ['echo'])).toBe(false);
    expect(isCommandAllowed('echo hi # touch M', ['echo'])).toBe(true);
    const { tool } = commandTool('ApproveOutside');
    expect(await tool.requiresApproval?.({ command: 'echo hi#; touch M' })).toBe(true);
    // Run without the approval it needs, the call is refused and nothing ran.
    expect(await exec(tool, { command: 'echo hi#; touch M' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Refused: run_command (now )?needs approval/),
    });
    expect(existsSync(join(fx.root, 'M'))).toBe(false);
  });

  it('asks when an argument of an allowed command reaches outside the roots (issue 10 item 6)', async () => {
    const tool = (allowCommands: string[]) =>
      new WorkspaceContextProvider({
        root: fx.root,
        name: 'ws',
        policy: 'ApproveOutside',
        properties: { allowCommands },
      }).addTool(createRunCommandTool()).tools[0] as ITool;
    const cat = tool(['cat', 'sort', 'curl', 'ls']);
    const asks = (command: string, t = cat) => t.requiresApproval?.({ command });
    await writeFile(join(fx.root, 'inside.txt'), 'in\n');
    expect(await asks('cat inside.txt')).toBe(false);
    expect(await asks('cat src/a.txt ./inside.txt')).toBe(false);
    expect(await asks('ls -la src')).toBe(false);
    expect(await asks(`cat ${join(fx.outside, 'secret.txt')}`)).toBe(true);
    expect(await asks('cat ../outside/secret.txt')).toBe(true);
    expect(await asks('cat src/../../outside/secret.txt')).toBe(true);
    expect(await asks('cat ~/.ssh/id_rsa')).toBe(true);
    expect(await asks('cat ~')).toBe(true);
    expect(await asks('cat ~root/x')).toBe(true);
    expect(await asks('cat final-link')).toBe(true); // a link inside pointing outside
    expect(await asks('cat dir-link/secret.txt')).toBe(true);
    expect(await asks(`sort -o${join(fx.outside, 'x')} inside.txt`)).toBe(true);
    expect(await asks(`sort --output=${join(fx.outside, 'x')} inside.txt`)).toBe(true);
    expect(await asks('curl file:///etc/passwd')).toBe(true);
    expect(await asks('cat /proc/self/root/etc/passwd')).toBe(true);
    expect(await asks('cat inside.txt; cat /etc/passwd')).toBe(true);
    expect(await asks(`cat inside.txt`, tool(['cat']))).toBe(false);
    const diff = tool(['git diff']);
    expect(await asks('git diff --stat', diff)).toBe(false);
    expect(await asks(`git diff --output=${join(fx.outside, 'x')}`, diff)).toBe(true);
    expect(await asks(`git diff --output ${join(fx.outside, 'x')}`, diff)).toBe(true);
    // A working folder inside: relative arguments resolve against it.
    expect(await cat.requiresApproval?.({ command: 'cat a.txt', working_dir: 'src' })).toBe(false);
    expect(
      await cat.requiresApproval?.({ command: 'cat ../../outside/secret.txt', working_dir: 'src' }),
    ).toBe(true);
    // Protected paths as arguments ask too.
    await writeFile(join(fx.root, '.env'), 'K=v\n');
    expect(await asks('cat .env')).toBe(true);
    expect(await asks('cat .git/config')).toBe(true);
    // The root now holds `.env`: any command run in it asks (run-command-protected.test.ts).
    expect(await asks('cat inside.txt')).toBe(true);
    // Allowed and inside a folder without secrets: it runs without asking.
    expect((await exec(cat, { command: 'cat a.txt', working_dir: 'src' })).data).toMatchObject({
      stdout: 'alpha\nneedle inside\n',
    });
  });

  it('asks for commands the list does not cover and binds the approval to folder and command', async () => {
    const { tool } = commandTool('ApproveOutside');
    expect(await tool.requiresApproval?.({ command: 'echo hi' })).toBe(false);
    expect(await tool.requiresApproval?.({ command: 'ls' })).toBe(true);
    expect(await tool.requiresApproval?.({ command: 'echo hi', working_dir: fx.outside })).toBe(true);
    expect(await tool.resolveTarget?.({ command: 'ls', working_dir: 'src' })).toBe(
      `${join(fx.root, 'src')}$ ls`,
    );
  });
});

const bubblewrap = await createLocalToolOperations().process.canConfine();

describe('run_command under deny with bubblewrap', () => {
  it.runIf(bubblewrap)('confines writes to the workspace and turns the network off', async () => {
    const { tool, provider } = commandTool('DenyOutside');
    const marker = join(fx.outside, 'escaped.txt');
    const result = await exec(tool, {
      command: `echo in > inside.txt; echo out > ${marker}; (exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null; echo net=$?`,
      output_level: 'all',
    });
    expect(result.data).toMatchObject({ confinement: 'bubblewrap', exit_code: 0 });
    expect(existsSync(join(fx.root, 'inside.txt'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect((result.data as { stderr: string }).stderr).toMatch(/cannot create/);
    expect(await provider.instructions()).toMatch(/run_command runs confined: .* network off/);
  });

  it('runs unconfined without bubblewrap, and says so in the result, the instructions and a warning', async () => {
    const { tool, provider } = commandTool('DenyOutside', { bwrap: '/nonexistent/bwrap' });
    const result = await exec(tool, { command: 'echo hi' });
    expect(result.data).toMatchObject({
      confinement: 'none',
      warning: expect.stringMatching(/^not confined/),
    });
    expect(await provider.instructions()).toMatch(/run_command is NOT confined/);
    const session = new AgentSession('s');
    const first = await provider.onInvoking({
      agentName: 'a',
      session,
      messages: [],
      input: [],
      signal: new AbortController().signal,
    });
    expect(first.warnings).toEqual([expect.stringMatching(/run_command is not confined/)]);
    const second = await provider.onInvoking({
      agentName: 'a',
      session,
      messages: [],
      input: [],
      signal: new AbortController().signal,
    });
    expect(second.warnings).toBeUndefined();
  });
});
