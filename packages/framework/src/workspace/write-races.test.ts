import { mkdir, readdir, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { JSONValue } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWriteFileTool } from '../builtin-tools/write-file.js';
import { executeCalls } from '../pipeline/tool-executor.js';
import { startFlipping } from '../test-support/flipper.js';
import { makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
import { createLocalToolOperations } from './operations/local-tool-operations.js';
import { RACE_PROOF_DIRECTORIES } from './operations/safe-directory.js';
import type { ToolOperations } from './operations/tool-operations.js';
import { WorkspaceContextProvider } from './workspace-context-provider.js';

let fx: WorkspaceFixture;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
  await mkdir(join(fx.root, 'sub'));
});
afterEach(() => fx.cleanup());

const run = { signal: new AbortController().signal, callId: 'c' };

/** Local operations whose write first swaps `root/sub` for a link to outside: the worst timing. */
function swappingOperations(): ToolOperations {
  const local = createLocalToolOperations();
  return {
    ...local,
    fs: Object.assign(Object.create(local.fs), {
      async writeFile(path: string, data: string, options: { signal: AbortSignal }) {
        await rename(join(fx.root, 'sub'), join(fx.root, 'sub-moved'));
        await symlink(fx.outside, join(fx.root, 'sub'));
        return local.fs.writeFile(path, data, options);
      },
    }),
  };
}

describe('writes race-proof against a parent swapped for a link', () => {
  it.skipIf(!RACE_PROOF_DIRECTORIES)('refuses the write when the checked parent became a link', async () => {
    for (const policy of ['AllowAll', 'ApproveOutside', 'DenyOutside'] as const) {
      await rm(join(fx.root, 'sub'), { recursive: true, force: true });
      await rm(join(fx.root, 'sub-moved'), { recursive: true, force: true });
      await mkdir(join(fx.root, 'sub'));
      const provider = new WorkspaceContextProvider(
        { root: fx.root, name: 'ws', policy },
        { operations: swappingOperations() },
      ).addTool(createWriteFileTool());
      const tool = provider.tools[0]!;
      const result = await tool.execute({ path: 'sub/file.txt', content: 'x' }, run);
      expect(result, policy).toMatchObject({
        ok: false,
        error: expect.stringMatching(/changed while in use/),
      });
      expect(await readdir(fx.outside)).toEqual(['secret.txt']);
    }
  });

  it('never lands a write outside while a folder flips between a directory and a link', async () => {
    const provider = new WorkspaceContextProvider({
      root: fx.root,
      name: 'ws',
      policy: 'DenyOutside',
    }).addTool(createWriteFileTool());
    const tool = provider.tools[0]!;
    await mkdir(join(fx.root, 'sub-real'));
    await symlink(fx.outside, join(fx.root, 'sub-link'));
    await rm(join(fx.root, 'sub'), { recursive: true });
    const flipper = startFlipping(fx.root);
    // Batches of 100 writes until both sides of the race were seen (a slow machine needs more).
    const outcomes = new Set<string>();
    for (let batch = 0; batch < 20 && outcomes.size < 2; batch++) {
      const results = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          await new Promise((r) => setTimeout(r, i % 20));
          return tool.execute({ path: `sub/f-${batch}-${i}.txt`, content: 'x' }, run);
        }),
      );
      for (const r of results) outcomes.add(r.ok ? 'ok' : 'refused');
    }
    await flipper.stop();
    expect(await readdir(fx.outside)).toEqual(['secret.txt']);
    // Both sides of the race happened: some writes landed inside, others were refused.
    expect([...outcomes].sort()).toEqual(['ok', 'refused']);
  });

  // Issue 10 item 9: under approve the gate said "inside", the folder flipped to a link before
  // the write resolved its path again, and the write landed outside (1–9 in 3,000).
  it('under approve, 0 of 3,000 writes judged inside land outside while a folder flips', async () => {
    const provider = new WorkspaceContextProvider({
      root: fx.root,
      name: 'ws',
      policy: 'ApproveOutside',
    }).addTool(createWriteFileTool());
    const tool = provider.tools[0]!;
    await mkdir(join(fx.root, 'sub-real'));
    await symlink(fx.outside, join(fx.root, 'sub-link'));
    await rm(join(fx.root, 'sub'), { recursive: true });
    const flipper = startFlipping(fx.root);
    const outcomes = { asked: 0, ok: 0, refused: 0 };
    const TRIES = 3000;
    for (let batch = 0; batch < TRIES / 100; batch++) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const args = { path: `sub/f-${batch}-${i}.txt`, content: 'x' };
          // The tool loop: ask the gate; only calls judged inside run without a human.
          if (await tool.requiresApproval?.(args)) {
            outcomes.asked++;
            return;
          }
          const call = { id: `c${batch}-${i}`, name: 'write_file', arguments: JSON.stringify(args) };
          const [result] = await executeCalls([{ call, tool, args }], new AbortController().signal);
          outcomes[result?.ok ? 'ok' : 'refused']++;
        }),
      );
    }
    await flipper.stop();
    expect(await readdir(fx.outside)).toEqual(['secret.txt']);
    expect(outcomes.asked + outcomes.ok + outcomes.refused).toBe(TRIES);
    // Both sides of the race happened.
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(outcomes.asked + outcomes.refused).toBeGreaterThan(0);
  }, 120_000);

  it('refuses an unapproved call whose target moved outside after the approval check', async () => {
    const provider = new WorkspaceContextProvider({
      root: fx.root,
      name: 'ws',
      policy: 'ApproveOutside',
    }).addTool(createWriteFileTool());
    const tool = provider.tools[0]!;
    const args = { path: 'sub/file.txt', content: 'x' };
    expect(await tool.requiresApproval?.(args)).toBe(false); // the loop's check: inside, runs
    await rm(join(fx.root, 'sub'), { recursive: true });
    await symlink(fx.outside, join(fx.root, 'sub'));
    const [result] = await executeCalls(
      [
        {
          call: { id: 'c1', name: 'write_file', arguments: JSON.stringify(args) },
          tool,
          args: args as JSONValue,
        },
      ],
      new AbortController().signal,
    );
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Refused: write_file now needs approval/),
    });
    expect(await readdir(fx.outside)).toEqual(['secret.txt']);
  });
});
