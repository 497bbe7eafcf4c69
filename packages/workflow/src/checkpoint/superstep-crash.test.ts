import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crashWorkflow } from '../test-support/crash-graph.js';
import type { CheckpointStore } from './checkpoint-store.js';
import { FileCheckpointStore } from './file-checkpoint-store.js';
import { SqliteCheckpointStore } from './sqlite/sqlite-checkpoint-store.js';

/**
 * Issue 28: a fan-out node that finished while its sibling ran is not run again after a kill -9.
 * The crash workflow's six branches run three at a time; the child is killed after a random
 * number of them finished. `RAF_SUPERSTEP_KILLS` per store (default 20).
 */
const KILLS = Number(process.env.RAF_SUPERSTEP_KILLS ?? 20);
const child = fileURLToPath(new URL('../test-support/superstep-crash-child.ts', import.meta.url));
const args = ['--conditions=@raf/source', '--import', import.meta.resolve('tsx'), child];

/** Runs the child and kills it once `branches` fan-out nodes said they finished; returns who ran. */
function runAndKill(dir: string, runId: string, kind: string, branches: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...args, dir, runId, kind], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const ran: string[] = [];
    let buffer = '';
    let killing = false;
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('ran ')) ran.push(line.slice(4));
      // A random moment after that many finished: inside a branch, inside a save, between them.
      if (ran.filter((id) => /^b\d$/.test(id)).length >= branches && !killing) {
        killing = true;
        setTimeout(() => proc.kill('SIGKILL'), Math.random() * 60);
      }
    });
    proc.on('error', reject);
    proc.on('exit', () => resolve(ran));
  });
}

const stores: [string, (dir: string) => Promise<CheckpointStore & { close?(): void }>][] = [
  ['file', async (dir) => new FileCheckpointStore(dir)],
  ['sqlite', (dir) => SqliteCheckpointStore.open({ path: join(dir, 'checkpoints.db') })],
];

describe.each(stores)('kill -9 inside a fan-out superstep (%s store)', (kind, open) => {
  it(`${KILLS} times: resume runs only the unfinished branches and ends as an uninterrupted run`, async () => {
    const dir = await mkdtemp(join(tmpdir(), `raf-superstep-${kind}-`));
    try {
      const reference = await crashWorkflow(join(dir, 'ref')).run(7, { runId: 'reference' }).result;
      let kept = 0;
      let rerunKept = 0;
      let finishedBranches = 0;
      let rerunFinished = 0;
      const queue = Array.from({ length: KILLS }, (_, i) => i);
      const worker = async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          const runId = `run${i}`;
          const finished = await runAndKill(dir, runId, kind, 1 + Math.floor(Math.random() * 5));
          const store = await open(dir);
          const latest = await store.load(runId);
          const checkpointed = new Set(latest?.state.progress?.done.map((d) => d.outcome.nodeId) ?? []);
          kept += checkpointed.size;
          const again: string[] = [];
          const resumed = await crashWorkflow(dir, { store, ran: (id) => again.push(id) }).resume({ runId })
            .result;
          store.close?.();
          expect(resumed.status).toBe('completed');
          expect(resumed.outputs).toEqual(reference.outputs);
          expect(resumed.state.state).toEqual(reference.state.state);
          for (const id of again) if (checkpointed.has(id)) rerunKept++;
          const branches = new Set(finished.filter((f) => /^b\d$/.test(f)));
          finishedBranches += branches.size;
          rerunFinished += again.filter((a) => branches.has(a)).length;
          // Only what had not finished, or finished without its checkpoint yet, runs again.
          for (const id of again.filter((a) => /^b\d$/.test(a)))
            expect(checkpointed.has(id), `run ${i}: ${id} ran again (finished: ${finished.join(' ')})`).toBe(
              false,
            );
        }
      };
      await Promise.all([worker(), worker(), worker()]);
      expect(rerunKept).toBe(0);
      expect(kept).toBeGreaterThan(0);
      // Before the fix every finished branch ran again (and none was kept); now only one whose
      // checkpoint the kill cut short does.
      console.log(`${kind}: ${finishedBranches} branches finished before a kill, ${rerunFinished} ran again`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
