import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ITool } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFindFilesTool } from '../builtin-tools/find-files.js';
import { createSearchFileTool } from '../builtin-tools/search-file.js';
import { makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
import { createLocalToolOperations } from './operations/local-tool-operations.js';
import { hasRipgrep } from './operations/ripgrep-search.js';
import { WorkspaceContextProvider } from './workspace-context-provider.js';

const TRIES = 300;
const rgInstalled = await hasRipgrep();
const run = { signal: new AbortController().signal, callId: 'c' };

let fx: WorkspaceFixture;
let flipper: ChildProcess | undefined;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
  // `sub` flips between a real folder (a decoy `secret.txt` with other content) and a link to the
  // outside folder (`secret.txt`: "needle secret", and a name found only there).
  await mkdir(join(fx.root, 'sub-real'));
  await writeFile(join(fx.root, 'sub-real', 'secret.txt'), 'needle decoy\n');
  await writeFile(join(fx.root, 'sub-real', 'inside.txt'), 'needle inside sub\n');
  await writeFile(join(fx.outside, 'only-outside.txt'), 'needle only outside\n');
  await symlink(fx.outside, join(fx.root, 'sub-link'));
  // In another process, so the swaps land while a search runs, not between two of them.
  const script = `const { renameSync: mv } = require('node:fs'); const r = ${JSON.stringify(fx.root)};
    const t = (f) => { try { f(); } catch {} };
    for (;;) { t(() => mv(r + '/sub-real', r + '/sub')); t(() => mv(r + '/sub', r + '/sub-real'));
      t(() => mv(r + '/sub-link', r + '/sub')); t(() => mv(r + '/sub', r + '/sub-link')); }`;
  flipper = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
});
afterEach(async () => {
  // Wait for the flipper to be gone: a kill only sends the signal, and a rename landing while the
  // fixture is removed makes the removal fail with ENOTEMPTY.
  const child = flipper;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  await fx.cleanup();
});

function tool(create: () => ITool, engine: 'walker' | 'ripgrep'): ITool {
  const provider = new WorkspaceContextProvider(
    { root: fx.root, name: 'ws', policy: 'DenyOutside' },
    { operations: createLocalToolOperations({ search: { engine } }) },
  ).addTool(create() as never);
  return provider.tools[0] as ITool;
}

/**
 * Runs the call TRIES times, and on until the real folder was seen once (at most 10 × TRIES): on a
 * loaded machine the flipper can leave `sub` away for all of the first TRIES calls, and the
 * `inside` check is there to prove the race ran, not to time the scheduler. Returns what was seen
 * inside and what leaked from outside.
 */
async function race(search: ITool, args: Record<string, unknown>, leaked: (text: string) => boolean) {
  let inside = 0;
  const leaks: string[] = [];
  for (let i = 0; i < TRIES || (inside === 0 && i < 10 * TRIES); i++) {
    const result = await search.execute(args, run);
    const text = JSON.stringify(result.data ?? result.error);
    if (leaked(text)) leaks.push(text);
    if (/inside sub|sub\/inside\.txt/.test(text)) inside++;
  }
  return { inside, leaks };
}

const engines = [
  ['walker', true],
  ['ripgrep', rgInstalled],
] as const;

// A few seconds on an idle machine; several times that when the busy flipper shares a loaded CPU.
describe(`searches while a folder flips between a directory and a link to outside (${TRIES} tries)`, {
  timeout: 60_000,
}, () => {
  for (const [engine, installed] of engines) {
    it.runIf(installed)(`${engine}: search_file of the root never returns an outside line`, async () => {
      const { inside, leaks } = await race(
        tool(createSearchFileTool, engine),
        { pattern: 'needle', directory: '.' },
        (t) => /needle secret|only outside/.test(t),
      );
      expect(leaks).toEqual([]);
      expect(inside).toBeGreaterThan(0); // the race ran: the real folder was searched too
    });

    it.runIf(installed)(
      `${engine}: search_file of the flipping folder itself never returns an outside line`,
      async () => {
        const { leaks } = await race(
          tool(createSearchFileTool, engine),
          { pattern: 'needle', directory: 'sub' },
          (t) => /needle secret|only outside/.test(t),
        );
        expect(leaks).toEqual([]);
      },
    );
  }

  it('find_files never lists an outside name', async () => {
    const find = tool(createFindFilesTool, 'walker');
    const { leaks } = await race(find, { pattern: '**/*.txt' }, (t) => t.includes('only-outside'));
    expect(leaks).toEqual([]);
    const direct = await race(find, { pattern: '*.txt', directory: 'sub' }, (t) =>
      t.includes('only-outside'),
    );
    expect(direct.leaks).toEqual([]);
    expect(direct.inside).toBeGreaterThan(0);
  });
});
