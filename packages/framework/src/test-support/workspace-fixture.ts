import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ITool, ScopePolicy, ToolResult } from '@raf/core';
import { createApplyPatchTool } from '../builtin-tools/apply-patch.js';
import { createFileTools } from '../builtin-tools/index.js';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';

/**
 * A real temporary tree for path-guard tests:
 * `base/root` (the workspace) with files, links out and in, a FIFO; siblings `root2`,
 * `root_backup`, `root.bak`, `root'`, `root ` and `outside`, each with a `secret.txt`.
 */
export interface WorkspaceFixture {
  base: string;
  root: string;
  outside: string;
  rootLink: string;
  cleanup(): Promise<void>;
}

export async function makeWorkspaceFixture(): Promise<WorkspaceFixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'raf-ws-')));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  await mkdir(join(root, 'src', 'deep'), { recursive: true });
  await writeFile(join(root, 'src', 'a.txt'), 'alpha\nneedle inside\n');
  await writeFile(join(root, '..test'), 'dots\n');
  await writeFile(join(root, 'big.txt'), Buffer.alloc(600 * 1024, 'x'));
  for (const sibling of ['root2', 'root_backup', 'root.bak', "root'", 'root ', 'outside']) {
    await mkdir(join(base, sibling), { recursive: true });
    await writeFile(join(base, sibling, 'secret.txt'), 'needle secret\n');
  }
  await symlink(join(outside, 'secret.txt'), join(root, 'final-link'));
  await symlink(outside, join(root, 'dir-link'));
  await symlink(join(outside, 'not-yet.txt'), join(root, 'dangling-out'));
  await symlink(join(root, 'src', 'a.txt'), join(root, 'chain-1'));
  await symlink(join(root, 'chain-1'), join(root, 'chain-2'));
  await symlink(join(root, 'loop-b'), join(root, 'loop-a'));
  await symlink(join(root, 'loop-a'), join(root, 'loop-b'));
  await symlink('/dev/zero', join(root, 'device-link'));
  const rootLink = join(base, 'root-link');
  await symlink(root, rootLink);
  execFileSync('mkfifo', [join(root, 'pipe')]);
  return { base, root, outside, rootLink, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** The 11 tools plus apply_patch, routed through a workspace with `policy`. */
export function workspaceTools(
  root: string,
  policy: ScopePolicy,
  properties: Record<string, string[] | boolean> = { allowCommands: ['echo', 'pwd', 'cat'] },
): Map<string, ITool> {
  const provider = new WorkspaceContextProvider({ root, name: 'ws', policy, properties });
  provider.addTools([...createFileTools(), createApplyPatchTool()]);
  return new Map(provider.tools.map((t) => [t.name, t]));
}

export function exists(path: string): boolean {
  return existsSync(path);
}

/** Executes the tool of `tools` named `name` at once (no gate: the AllowAll tests). */
export function executeTool(
  tools: Map<string, ITool>,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const tool = tools.get(name);
  if (!tool) throw new Error(`no tool ${name} in the workspace`);
  return tool.execute(args, { signal: new AbortController().signal, callId: 'c' });
}

/** Runs one call the way the tool loop would: ask the gate, then execute. */
export async function callTool(
  tool: ITool,
  args: Record<string, unknown>,
): Promise<{ asked: boolean; result?: ToolResult }> {
  const asked = tool.requiresApproval ? await tool.requiresApproval(args) : false;
  if (asked) return { asked };
  const result = await tool.execute(args, { signal: new AbortController().signal, callId: 'c1' });
  return { asked, result };
}
