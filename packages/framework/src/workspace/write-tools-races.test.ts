import { mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ITool, JSONValue, ScopePolicy } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplyPatchTool } from '../builtin-tools/apply-patch.js';
import { createFileTools } from '../builtin-tools/index.js';
import { executeCalls } from '../pipeline/tool-executor.js';
import { startFlipping } from '../test-support/flipper.js';
import { makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
import { RACE_PROOF_DIRECTORIES } from './operations/safe-directory.js';
import { WorkspaceContextProvider } from './workspace-context-provider.js';

// Issue 10 item 9: every write tool, under every policy, reaches its folder one component at a
// time with O_NOFOLLOW, and is judged again on the paths it then uses.
const TRIES = 300;
/** More batches, up to this many calls, with the folder held longer, while no call has succeeded yet. */
const MAX_TRIES = 1500;

let fx: WorkspaceFixture;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
  await mkdir(join(fx.root, 'sub-real'));
  await mkdir(join(fx.root, 'moves'));
  await symlink(fx.outside, join(fx.root, 'sub-link'));
});
afterEach(() => fx.cleanup());

function tools(policy: ScopePolicy): Map<string, ITool> {
  const provider = new WorkspaceContextProvider({ root: fx.root, name: 'ws', policy });
  provider.addTools([...createFileTools(), createApplyPatchTool()]);
  return new Map(provider.tools.map((t) => [t.name, t]));
}

/** The tool loop without a human: calls that ask are counted and skipped. */
async function loopCall(tool: ITool, args: Record<string, unknown>, id: string): Promise<string> {
  if (await tool.requiresApproval?.(args)) return 'asked';
  const call = { id, name: tool.name, arguments: JSON.stringify(args) };
  const [result] = await executeCalls(
    [{ call, tool, args: args as JSONValue }],
    new AbortController().signal,
  );
  return result?.ok ? 'ok' : 'refused';
}

interface RaceCase {
  tool: string;
  /** Files the case needs before the race (inside `sub-real`, `outside` and `moves`). */
  prepare?(i: number): Promise<void>;
  args(i: number): Record<string, unknown>;
}

const CASES: RaceCase[] = [
  { tool: 'write_file', args: (i) => ({ path: `sub/w-${i}.txt`, content: 'x' }) },
  {
    tool: 'edit_file',
    prepare: async (i) => {
      await writeFile(join(fx.root, 'sub-real', `e-${i}.txt`), 'old');
      await writeFile(join(fx.outside, `e-${i}.txt`), 'old');
    },
    args: (i) => ({ path: `sub/e-${i}.txt`, old_str: 'old', new_str: 'new' }),
  },
  { tool: 'make_directory', args: (i) => ({ path: `sub/d-${i}/deeper` }) },
  {
    tool: 'move_file',
    prepare: (i) => writeFile(join(fx.root, 'moves', `m-${i}.txt`), 'x'),
    args: (i) => ({ from: `moves/m-${i}.txt`, to: `sub/m-${i}.txt` }),
  },
  {
    tool: 'remove_path',
    prepare: async (i) => {
      await writeFile(join(fx.root, 'sub-real', `r-${i}.txt`), 'x');
      await writeFile(join(fx.outside, `r-${i}.txt`), 'x');
    },
    args: (i) => ({ path: `sub/r-${i}.txt` }),
  },
  {
    tool: 'apply_patch',
    args: (i) => ({ patch: `--- /dev/null\n+++ b/sub/p-${i}.txt\n@@ -0,0 +1 @@\n+x\n` }),
  },
];

const rows = CASES.flatMap((c) =>
  (['AllowAll', 'ApproveOutside', 'DenyOutside'] as const).map((policy) => [c.tool, policy, c] as const),
);

describe.runIf(RACE_PROOF_DIRECTORIES)(
  'write tools while a folder flips between a directory and a link',
  () => {
    it.each(rows)(
      `%s under %s: 0 of ${TRIES}+ calls change anything outside`,
      async (_name, policy, c) => {
        for (let i = 0; i < MAX_TRIES; i++) await c.prepare?.(i);
        const before = (await readdir(fx.outside)).sort();
        const tool = tools(policy).get(c.tool) as ITool;
        let hold = 4;
        let flipper = startFlipping(fx.root, hold);
        const outcomes: Record<string, number> = {};
        try {
          for (let batch = 0; batch < MAX_TRIES / 50; batch++) {
            if (batch * 50 >= TRIES && outcomes.ok) break;
            // Still no success (a loaded machine): the folder stays longer, the link still flips in.
            if (batch * 50 >= TRIES && hold < 64) {
              await flipper.stop();
              hold *= 2;
              flipper = startFlipping(fx.root, hold);
            }
            const results = await Promise.all(
              Array.from({ length: 50 }, (_, k) => {
                const i = batch * 50 + k;
                return loopCall(tool, c.args(i), `c${i}`);
              }),
            );
            for (const r of results) outcomes[r] = (outcomes[r] ?? 0) + 1;
          }
        } finally {
          await flipper.stop();
        }
        // Under allow a call that resolved outside may act there: that is the policy, not a race.
        if (policy !== 'AllowAll') {
          expect((await readdir(fx.outside)).sort()).toEqual(before);
          for (const name of before)
            if (name.startsWith('e-')) expect(await readFile(join(fx.outside, name), 'utf8')).toBe('old');
        }
        expect(outcomes.ok ?? 0, JSON.stringify(outcomes)).toBeGreaterThan(0);
      },
      120_000,
    );

    it('removes a tree without following a subfolder swapped for a link mid-removal', async () => {
      // The same 100 folders of 20 files inside and outside: a removal by path (`rm -r`) that
      // resumes in `tree/sub` after the swap deletes the outside ones.
      const tree = join(fx.root, 'tree');
      const names: string[] = [];
      for (let d = 0; d < 100; d++) {
        await mkdir(join(tree, 'sub', `d-${d}`), { recursive: true });
        await mkdir(join(fx.outside, `d-${d}`));
        for (let k = 0; k < 20; k++) {
          await writeFile(join(tree, 'sub', `d-${d}`, `f-${k}.txt`), 'x');
          await writeFile(join(fx.outside, `d-${d}`, `f-${k}.txt`), 'x');
          names.push(join(`d-${d}`, `f-${k}.txt`));
        }
      }
      const tool = tools('DenyOutside').get('remove_path') as ITool;
      const removal = loopCall(tool, { path: 'tree' }, 't1');
      // Once the removal is under way in `tree/sub`, swap the folder for a link to outside.
      const started = async () => {
        for (let d = 0; d < 100; d++)
          if ((await readdir(join(tree, 'sub', `d-${d}`)).catch(() => [])).length < 20) return true;
        return false;
      };
      while (!(await started())) await new Promise((r) => setImmediate(r));
      await rename(join(tree, 'sub'), join(fx.root, 'sub-moved'));
      await symlink(fx.outside, join(tree, 'sub'));
      expect(['ok', 'refused']).toContain(await removal);
      const left = await Promise.all(
        names.map((n) => readFile(join(fx.outside, n), 'utf8').catch(() => 'gone')),
      );
      expect(left.filter((v) => v === 'gone').length).toBe(0);
    }, 120_000);
  },
);
