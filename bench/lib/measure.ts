import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** One operation of a contender (e.g. one streamed answer read to the end). */
export type Operation = () => Promise<void>;

export interface Measurement {
  /** With `--instructions`: machine instructions per operation (callgrind), repeatable on a noisy machine. */
  instructionsPerOp?: number;
  /** Median over rounds of the contender process's CPU time (user + system) per operation, in ms. */
  cpuMsPerOp: number;
  /** Median wall time per operation, in ms (noisy; for context only). */
  wallMsPerOp: number;
  /** Peak resident set size of the contender process, in MiB (largest over rounds). */
  peakRssMiB: number;
}

export interface WorkerRequest {
  bench: string;
  scenario: string;
  contender: string;
  baseURL: string;
  warmupOps: number;
  ops: number;
  /** Instead of one warm-up and one measurement: several, in order, in the one process. */
  phases?: Phase[];
}

/** A measurement taken after `warmupOps` more operations than the phase before it ran. */
export interface Phase {
  warmupOps: number;
  ops: number;
}

export interface MeasureOptions {
  rounds: number;
  warmupOps: number;
  ops: number;
  /** Count instructions under valgrind instead of timing (one round of `ops`, minus a warm-up-only run). */
  instructions?: boolean;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `warmupOps` then `ops` operations in this process and reports per-op CPU and wall time. */
export async function timeOperations(operation: Operation, warmupOps: number, ops: number) {
  for (let i = 0; i < warmupOps; i++) await operation();
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  for (let i = 0; i < ops; i++) await operation();
  const cpu = process.cpuUsage(cpuStart);
  return {
    cpuMsPerOp: (cpu.user + cpu.system) / 1000 / ops,
    wallMsPerOp: (performance.now() - wallStart) / ops,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

function runWorker(request: WorkerRequest & { phases: Phase[] }): Promise<Measurement[]>;
function runWorker(request: WorkerRequest): Promise<Measurement>;
function runWorker(request: WorkerRequest): Promise<Measurement | Measurement[]> {
  const worker = fileURLToPath(new URL('../worker.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', worker, JSON.stringify(request)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0)
        reject(
          new Error(`${request.bench}/${request.scenario}/${request.contender} worker exited with ${code}`),
        );
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Measurement | Measurement[]);
    });
  });
}

/** Instructions the worker executed (all threads), counted by callgrind. */
function countInstructions(request: WorkerRequest): Promise<number> {
  const worker = fileURLToPath(new URL('../worker.ts', import.meta.url));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      process.execPath,
      '--import',
      'tsx',
      worker,
      JSON.stringify(request),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', (error) =>
      reject(new Error(`--instructions needs valgrind (apt-get install valgrind): ${error.message}`)),
    );
    child.once('exit', (code) => {
      const collected = /Collected : (\d+)/.exec(err);
      if (code !== 0 || !collected) {
        const tail = err
          .split('\n')
          .filter((line) => !line.startsWith('=='))
          .slice(-8)
          .join('\n');
        reject(new Error(`callgrind run of ${request.contender} failed (${code}):\n${tail}`));
      } else resolve(Number(collected[1]));
    });
  });
}

/** Per-op instructions: a run with the operations minus a run with the warm-up only (start-up cancels out). */
async function measureInstructions(request: WorkerRequest): Promise<Measurement> {
  // One after the other: two valgrind runs of a slow peer side by side failed intermittently here.
  const base = await countInstructions({ ...request, ops: 0 });
  const full = await countInstructions(request);
  return {
    cpuMsPerOp: Number.NaN,
    wallMsPerOp: Number.NaN,
    peakRssMiB: Number.NaN,
    instructionsPerOp: (full - base) / request.ops,
  };
}

/**
 * Each contender runs in a fresh process per round (so one library's garbage is never collected
 * on another's time); rounds alternate the order; the median round is reported.
 */
export async function measure(
  base: Omit<WorkerRequest, 'contender' | 'warmupOps' | 'ops'>,
  contenders: string[],
  options: MeasureOptions,
): Promise<Record<string, Measurement>> {
  if (options.instructions) {
    const result: Record<string, Measurement> = {};
    for (const contender of contenders) {
      result[contender] = await measureInstructions({
        ...base,
        contender,
        warmupOps: options.warmupOps,
        ops: options.ops,
      });
    }
    return result;
  }
  const samples = new Map<string, Measurement[]>(contenders.map((c) => [c, []]));
  for (let round = 0; round < options.rounds; round++) {
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
    for (const contender of order) {
      samples
        .get(contender)!
        .push(await runWorker({ ...base, contender, warmupOps: options.warmupOps, ops: options.ops }));
    }
  }
  return medians(samples);
}

function medians(samples: Map<string, Measurement[]>): Record<string, Measurement> {
  const result: Record<string, Measurement> = {};
  for (const [contender, runs] of samples) {
    result[contender] = {
      cpuMsPerOp: median(runs.map((r) => r.cpuMsPerOp)),
      wallMsPerOp: median(runs.map((r) => r.wallMsPerOp)),
      peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
    };
  }
  return result;
}

/**
 * Like `measure`, with several measurements per process (`phases`, in order): one fresh process
 * per contender and round gives, say, the figure after 10 warm-up runs and after 500. One record
 * per phase, medians over rounds.
 */
export async function measurePhases(
  base: Omit<WorkerRequest, 'contender' | 'warmupOps' | 'ops'>,
  contenders: string[],
  rounds: number,
  phases: Phase[],
): Promise<Record<string, Measurement>[]> {
  const samples = phases.map(() => new Map<string, Measurement[]>(contenders.map((c) => [c, []])));
  for (let round = 0; round < rounds; round++) {
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
    for (const contender of order) {
      const measured = await runWorker({ ...base, contender, warmupOps: 0, ops: 0, phases });
      for (const [i, m] of measured.entries()) samples[i]!.get(contender)!.push(m);
    }
  }
  return samples.map(medians);
}
