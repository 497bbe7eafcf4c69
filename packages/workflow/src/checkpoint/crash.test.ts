import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crashWorkflow } from '../test-support/crash-graph.js';

const KILLS = Number(process.env.RAF_WORKFLOW_KILLS ?? 50);
const child = fileURLToPath(new URL('../test-support/crash-child.ts', import.meta.url));
const args = ['--conditions=@raf/source', '--import', import.meta.resolve('tsx'), child];

/** Runs the crash workflow in a child and kills it (-9) once it reports superstep `at`. */
function runAndKill(dir: string, runId: string, at: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...args, dir, runId], { stdio: ['ignore', 'pipe', 'inherit'] });
    let seen = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      seen += chunk;
      if (seen.includes(`step ${at}\n`)) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    proc.on('exit', (_code, signal) =>
      resolve(signal === 'SIGKILL' ? `killed after step ${at}` : 'finished'),
    );
  });
}

describe('kill -9 at a random superstep', () => {
  it(`${KILLS} times: resuming from the file store finishes with the outputs of an uninterrupted run`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'raf-crash-'));
    try {
      const reference = await crashWorkflow(join(dir, 'ref')).run(7, { runId: 'reference' }).result;
      expect(reference.status).toBe('completed');
      expect(reference.outputs).toHaveLength(7);
      const steps = Number(reference.state.step);
      const outcomes: string[] = [];
      const queue = Array.from({ length: KILLS }, (_, i) => i);
      const worker = async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          const at = Math.floor(Math.random() * (steps - 1));
          outcomes.push(await runAndKill(dir, `run${i}`, at));
          // A new process would do the same: a fresh workflow object over the same folder.
          const resumed = await crashWorkflow(dir).resume({ runId: `run${i}` }).result;
          expect(resumed.status).toBe('completed');
          expect(resumed.outputs).toEqual(reference.outputs);
          expect(resumed.state.state).toEqual(reference.state.state);
        }
      };
      await Promise.all([worker(), worker(), worker()]);
      expect(outcomes.filter((o) => o.startsWith('killed')).length).toBeGreaterThan(KILLS * 0.8);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
