import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepTempFiles } from '@raf/framework';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCheckpointStore } from './create-checkpoint-store.js';
import { FileCheckpointStore } from './file-checkpoint-store.js';

/** A pid that certainly names no live process: one that has just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-cp-sweep-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function plantDebris(folder: string): Promise<{ dead: string; live: string }> {
  await mkdir(folder, { recursive: true });
  // What `writeFileAtomic` of this package leaves when killed between open and rename.
  const dead = `.cp-1.json.${deadPid()}.0a1b2c3d.tmp`;
  const live = `.cp-2.json.${process.pid}.0a1b2c3d.tmp`;
  await writeFile(join(folder, dead), '{"torn');
  await writeFile(join(folder, live), '{"in progress');
  return { dead, live };
}

describe('a killed writer’s temp files in a checkpoint folder', () => {
  it('are removed on the first touch of the run folder when a sweeper is given (a live writer’s stay)', async () => {
    const { dead, live } = await plantDebris(join(dir, 'run-1'));
    const store = new FileCheckpointStore(dir, { sweepTempFiles });
    expect(await store.load('run-1')).toBeUndefined();
    expect(await readdir(join(dir, 'run-1'))).toEqual([live]);
    expect((await readdir(join(dir, 'run-1'))).includes(dead)).toBe(false);
  });

  it('are swept through createCheckpointStore(file:…) too', async () => {
    const { live } = await plantDebris(join(dir, 'checkpoints', 'run-2'));
    const { store } = await createCheckpointStore(`file:${dir}`, { sweepTempFiles });
    expect(await store.list('run-2')).toEqual([]);
    expect(await readdir(join(dir, 'checkpoints', 'run-2'))).toEqual([live]);
  });

  it('stay without a sweeper (the store itself does no process checks)', async () => {
    const { dead, live } = await plantDebris(join(dir, 'run-3'));
    await new FileCheckpointStore(dir).load('run-3');
    expect((await readdir(join(dir, 'run-3'))).sort()).toEqual([dead, live].sort());
  });
});
