import { defineTool, toolSuccess } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFileTool } from '../builtin-tools/index.js';
import { executeCalls } from '../pipeline/tool-executor.js';
import { createLoadSkillTool } from '../skills/skill-tools.js';
import { BUILTIN_TOOL_MANIFESTS, manifestOf } from './builtin-manifests.js';

function userTool(name: string, log: string[]) {
  return defineTool({
    name,
    description: 'a user tool',
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      log.push(`start ${n}`);
      await new Promise((r) => setTimeout(r, 20));
      log.push(`end ${n}`);
      return toolSuccess(n);
    },
  });
}

describe('manifestOf: built-in manifests only for built-in tools', () => {
  it('gives a user tool named like a built-in (bash, write_file) the default manifest', () => {
    expect(manifestOf(userTool('bash', []))).toMatchObject({ kind: 'custom', requiresShell: false });
    expect(manifestOf(userTool('write_file', []))).toMatchObject({
      kind: 'custom',
      executionMode: 'parallel',
      requiresWrite: false,
    });
  });

  it('keeps the built-in manifest on the built-in tools, which carry it', () => {
    expect(manifestOf(createFileTool('write_file'))).toBe(BUILTIN_TOOL_MANIFESTS.write_file);
    expect(manifestOf(createFileTool('run_command')).requiresShell).toBe(true);
    expect(manifestOf(createFileTool('read_file')).executionMode).toBe('parallel');
    expect(manifestOf(createLoadSkillTool([])).kind).toBe('skill');
  });

  it('runs two calls of a user tool named write_file side by side (not as sequential writes)', async () => {
    const log: string[] = [];
    const tool = userTool('write_file', log);
    const calls = [1, 2].map((n) => ({
      call: { id: `c${n}`, name: 'write_file', arguments: `{"n":${n}}` },
      tool,
      args: { n },
    }));
    await executeCalls(calls, new AbortController().signal);
    expect(log).toEqual(['start 1', 'start 2', 'end 1', 'end 2']);
  });
});
