import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ITool, ToolResult } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentSession } from '../sessions/agent-session.js';
import { makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
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
