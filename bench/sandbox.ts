// The code interpreter's start-up costs, as wall times (what a model's tool call waits for):
// JavaScript in a new session (a fresh QuickJS WebAssembly instance on the running worker), a warm
// call in a persisted session, and Python in a fresh bubblewrap sandbox, against bare `python3 -c`.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createCodeInterpreterTool } from '@raf/sandbox';

export interface SandboxBenchResult {
  /** First call of a new session: new WebAssembly instance, runtime, context, eval, round trip. */
  jsColdMs: number;
  /** A call in a persisted session. */
  jsWarmMs: number;
  /** A new tool's first call: its worker thread starts too (the WebAssembly is compiled once per process). */
  jsNewToolMs: number;
  /** `print(1)` in a fresh bubblewrap sandbox under rlimits; undefined without bubblewrap. */
  pyColdMs?: number;
  /** Bare `python3 -c 'print(1)'` (the system's, as the sandbox runs it): the floor. */
  pyFloorMs?: number;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const signal = new AbortController().signal;

async function time(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function bare(): Promise<void> {
  return new Promise((resolve, reject) => {
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
    const child = spawn(python, ['-u', '-s', '-c', 'print(1)'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

export async function runSandboxBench(runs: number): Promise<SandboxBenchResult> {
  const newTool: number[] = [];
  for (let i = 0; i < Math.max(3, Math.ceil(runs / 5)); i++) {
    const tool = await createCodeInterpreterTool({ languages: ['javascript'] });
    if (i === 0) await tool.warmUp(); // compiles the WebAssembly once for the process
    newTool.push(await time(() => tool.execute({ code: '1 + 1' }, { signal, callId: 'c' })));
    await tool.dispose();
  }
  const tool = await createCodeInterpreterTool({ persist: true });
  const run = (code: string, sessionId: string, language = 'javascript') =>
    tool.execute({ language, code }, { signal, callId: 'c', sessionId });
  await run('1', 'warm-up');
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < runs; i++) {
    cold.push(await time(() => run('var n = 1; n + 1', `cold-${i}`)));
    await tool.execute({ code: '0' }, { signal, callId: 'c', sessionId: `cold-${i}` });
  }
  await run('var total = 0', 'warm');
  for (let i = 0; i < runs * 10; i++) warm.push(await time(() => run('total += 1', 'warm')));
  const result: SandboxBenchResult = {
    jsColdMs: median(cold),
    jsWarmMs: median(warm),
    jsNewToolMs: median(newTool),
  };
  if (tool.languages.includes('python') && !tool.notes.some((n) => /unconfined/.test(n))) {
    const python = await createCodeInterpreterTool({ languages: ['python'] });
    await python.execute({ code: 'print(1)' }, { signal, callId: 'c' });
    const py: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < runs; i++) {
      py.push(await time(() => python.execute({ code: 'print(1)' }, { signal, callId: 'c' })));
      floor.push(await time(bare));
    }
    result.pyColdMs = median(py);
    result.pyFloorMs = median(floor);
    await python.dispose();
  }
  await tool.dispose();
  return result;
}
