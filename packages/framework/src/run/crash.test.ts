import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockModelServer } from '@raf/client/testing';
import { describe, expect, it } from 'vitest';
import { folded, fourRoundModel, JsonLinesJournal, ROUNDS } from '../test-support/journal-fixture.js';

const script = fileURLToPath(new URL('../test-support/crash-run-process.ts', import.meta.url));
const KILLS = 8;

function start(mode: 'start' | 'resume', baseURL: string, dir: string) {
  const child = spawn(
    process.execPath,
    ['--conditions=@raf/source', '--import', 'tsx', script, mode, baseURL, dir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Resolves once the child reported `count` side effects (or exited). */
  const effects = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (stdout.split('effect\n').length - 1 >= count) resolve();
      };
      child.stdout.on('data', check);
      check();
      void exited.then(() => resolve());
    });
  return { child, exited, effects, output: () => ({ stdout, stderr }) };
}

describe('the turn journal under kill -9', () => {
  it(`a four-round tool run killed at ${KILLS} random moments and resumed in a new process runs no journaled call twice`, async () => {
    const server = await startMockModelServer({
      turns: (request) => fourRoundModel(request),
      recordRequests: false,
    });
    let interrupted = 0;
    let inDoubt = 0;
    try {
      for (let i = 0; i < KILLS; i++) {
        const dir = await mkdtemp(join(tmpdir(), 'raf-crash-'));
        try {
          const first = start('start', server.baseURL, dir);
          // Killed after a random number of the run's 8 side effects, a random moment later:
          // inside a tool, between a result and its journal line, in a model call.
          await first.effects(Math.floor(Math.random() * 2 * ROUNDS));
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
          first.child.kill('SIGKILL');
          await first.exited;

          const journal = new JsonLinesJournal(join(dir, 'journal.jsonl'));
          const atCrash = folded('s', journal.read());
          const journaled = new Set(
            atCrash.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId),
          );
          if (journaled.size > 0 && atCrash.messages.at(-1)?.content !== 'done') interrupted++;
          inDoubt += atCrash.inFlight?.length ?? 0;

          const second = start('resume', server.baseURL, dir);
          const code = await second.exited;
          expect(code, second.output().stderr).toBe(0);
          expect(JSON.parse(second.output().stdout.trim().split('\n').at(-1)!)).toMatchObject({
            type: 'finish',
            reason: 'stop',
          });

          const effects = (await readFile(join(dir, 'effects.log'), 'utf8').catch(() => ''))
            .split('\n')
            .filter(Boolean)
            .map((line) => line.split(' ') as [string, string]);
          for (const [phase, what] of effects) {
            if (phase === 'resume')
              expect(journaled.has(what.replace(/^look:/, '')), `kill ${i}: ${what}`).toBe(false);
          }
          const bumps = effects.filter(([, what]) => !what.startsWith('look:')).map(([, what]) => what);
          expect(new Set(bumps).size, `kill ${i}: a bump ran twice: ${bumps.join(' ')}`).toBe(bumps.length);

          const final = folded('s', journal.read());
          expect(final.inFlight).toBeUndefined();
          expect(final.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'done' });
          const calls = final.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.id);
          expect(calls).toHaveLength(2 * ROUNDS);
          const answers = final.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId);
          expect([...answers].sort()).toEqual([...calls].sort());
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
    } finally {
      await server.close();
    }
    // The kills landed inside the run, after some results were journaled.
    expect(interrupted).toBeGreaterThan(0);
    console.log(
      `kill -9 x${KILLS}: ${interrupted} turns interrupted after a journaled result, ${inDoubt} calls in doubt, 0 re-executed`,
    );
  }, 400_000);
});
