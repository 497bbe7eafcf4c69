import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionExecutor } from '../executors/function-executor.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { Workflow } from '../workflow.js';
import type { CheckpointStore } from './checkpoint-store.js';
import { FileCheckpointStore } from './file-checkpoint-store.js';
import { InMemoryCheckpointStore } from './memory-checkpoint-store.js';
import { SqliteCheckpointStore } from './sqlite/sqlite-checkpoint-store.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
const temp = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'raf-cp-'));
  dirs.push(dir);
  return dir;
};

const chain = () => {
  const builder = new WorkflowBuilder().setStart('a');
  ['a', 'b', 'c'].forEach((id, i, all) => {
    builder.addNode(
      id,
      functionExecutor((x) => `${x}${id}`),
      { output: i === all.length - 1 },
    );
    if (i > 0) builder.addEdge(all[i - 1]!, id);
  });
  return builder.build();
};

const stores: [string, () => Promise<CheckpointStore>][] = [
  ['memory', async () => new InMemoryCheckpointStore()],
  ['file', async () => new FileCheckpointStore(await temp())],
  ['sqlite', async () => SqliteCheckpointStore.open({ path: join(await temp(), 'checkpoints.db') })],
];

describe.each(stores)('%s checkpoint store', (_name, open) => {
  it('keeps one checkpoint per superstep of each run, lists, loads, prunes and deletes them', async () => {
    const store = await open();
    const workflow = new Workflow(chain(), { checkpoints: store });
    await workflow.run('', { runId: 'one' }).result;
    await workflow.run('x', { runId: 'two' }).result;
    const list = await store.list('one');
    expect(list.map((c) => c.step)).toEqual([0, 1, 2]);
    expect(list.every((c) => c.byteSize > 0 && c.fingerprint === workflow.graph.fingerprint)).toBe(true);
    expect((await store.runs()).sort()).toEqual(['one', 'two']);
    expect((await store.load('two'))?.state.outputs).toEqual([{ nodeId: 'c', value: 'xabc' }]);
    expect((await store.load('one', list[0]!.id))?.step).toBe(0);
    expect(await store.prune('one', 1)).toBe(2);
    expect((await store.list('one')).map((c) => c.step)).toEqual([2]);
    await store.delete('one');
    expect(await store.list('one')).toEqual([]);
    expect(await store.load('nothing')).toBeUndefined();
  });
});

describe('file checkpoint store', () => {
  it('writes one file per checkpoint, atomically (no temporary files left), and refuses unsafe run ids', async () => {
    const dir = await temp();
    const store = new FileCheckpointStore(dir);
    await new Workflow(chain(), { checkpoints: store }).run('', { runId: 'r' }).result;
    const files = await readdir(join(dir, 'r'));
    expect(files).toHaveLength(3);
    expect(files.every((f) => /^s\d{8}-[a-z0-9]+\.json$/.test(f))).toBe(true);
    await expect(store.list('../escape')).rejects.toThrow(/may hold only letters/);
  });
});
