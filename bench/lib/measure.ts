export interface Contender {
  name: string;
  /** One operation (e.g. one streamed answer read to the end). */
  run(): Promise<void>;
}

export interface Measurement {
  /** CPU time (user + system) of this process per operation, in ms. */
  cpuMsPerOp: number;
  /** Wall time per operation, in ms (noisy; reported for context only). */
  wallMsPerOp: number;
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * Runs every contender `rounds` times `opsPerRound` operations, interleaved so drift on a noisy
 * machine hits all of them alike, after one warm-up round each.
 */
export async function measure(
  contenders: Contender[],
  options: { rounds: number; opsPerRound: number },
): Promise<Record<string, Measurement>> {
  for (const contender of contenders) for (let i = 0; i < options.opsPerRound; i++) await contender.run();
  const cpu = new Map<string, number>();
  const wall = new Map<string, number>();
  for (let round = 0; round < options.rounds; round++) {
    for (const contender of contenders) {
      globalThis.gc?.();
      const cpuStart = cpuMs();
      const wallStart = performance.now();
      for (let i = 0; i < options.opsPerRound; i++) await contender.run();
      cpu.set(contender.name, (cpu.get(contender.name) ?? 0) + cpuMs() - cpuStart);
      wall.set(contender.name, (wall.get(contender.name) ?? 0) + performance.now() - wallStart);
    }
  }
  const ops = options.rounds * options.opsPerRound;
  const result: Record<string, Measurement> = {};
  for (const contender of contenders) {
    result[contender.name] = {
      cpuMsPerOp: (cpu.get(contender.name) ?? 0) / ops,
      wallMsPerOp: (wall.get(contender.name) ?? 0) / ops,
    };
  }
  return result;
}
