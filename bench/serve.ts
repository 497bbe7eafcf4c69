// `raf serve` under load (issue 31): one replica (memory store), `streams` runs started at once,
// each a 4-round run of the loop agent on the mock model, each read to the end over its SSE
// events stream by its own client. Figures: failed streams (an HTTP error, a stream without its
// `finish`, an `error` event), the wall time from the POST to the first event (p50, p99), the
// server's peak RSS, and its CPU per run over the CPU per run of the same agent run in-process
// (`servedOverPlain`, target ≤ 1.3×). The server and the baseline each run in their own process.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { Agent, fetch } from 'undici';

export interface ServeBenchResult {
  streams: number;
  failed: number;
  firstEventP50Ms: number;
  firstEventP99Ms: number;
  peakRssMiB: number;
  servedOverPlain: number;
  /** CPU ms per run: in the server process, and in-process without a server. */
  cpuMsPerRun: { served: number; plain: number };
}

const script = fileURLToPath(new URL('./lib/serve-child.ts', import.meta.url));

function child(args: string[]) {
  // `RAF_BENCH_CPU_PROF=DIR`: a CPU profile of each child there (where the server's time goes).
  const profile = process.env.RAF_BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.RAF_BENCH_CPU_PROF]
    : [];
  const proc = spawn(process.execPath, [...profile, '--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout });
  const first = new Promise<Record<string, unknown>>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`serve bench child exited with ${code}`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as Record<string, unknown>));
  });
  return { proc, first };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

export async function runServeBench(
  baseURL: string,
  options: { streams: number; warmup: number },
): Promise<ServeBenchResult> {
  const served = child(['served', baseURL]);
  const { url, token } = (await served.first) as { url: string; token: string };
  const dispatcher = new Agent({ connections: null, pipelining: 0 });
  const headers = { authorization: `Bearer ${token}` };
  const stats = async () =>
    (await (await fetch(`${url}/bench/stats`, { headers, dispatcher })).json()) as {
      cpuMs: number;
      peakRssMiB: number;
    };
  /** One client: start the run, read its events to `finish`; the ms to its first event, or a failure. */
  const stream = async (): Promise<number | Error> => {
    const started = performance.now();
    try {
      const res = await fetch(`${url}/v1/agents/loop/runs`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{"input":"go"}',
        dispatcher,
      });
      if (res.status !== 201) return new Error(`start: ${res.status}`);
      const { runId } = (await res.json()) as { runId: string };
      const events = await fetch(`${url}/v1/runs/${runId}/events`, { headers, dispatcher });
      if (events.status !== 200) return new Error(`events: ${events.status}`);
      let first: number | undefined;
      let finish: string | undefined;
      let expected = 1;
      for await (const message of events
        .body!.pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())) {
        first ??= performance.now() - started;
        if (Number(message.id) !== expected++) return new Error(`event ${message.id} out of sequence`);
        const event = JSON.parse(message.data) as { type: string; reason?: string };
        if (event.type === 'error') return new Error(`error event: ${message.data}`);
        if (event.type === 'finish') finish = event.reason;
      }
      if (finish !== 'stop') return new Error(`finished with ${finish}`);
      return first ?? new Error('no events');
    } catch (error) {
      return error as Error;
    }
  };
  try {
    for (let done = 0; done < options.warmup; done += 50)
      await Promise.all(Array.from({ length: 50 }, stream));
    const before = await stats();
    const results = await Promise.all(Array.from({ length: options.streams }, stream));
    const after = await stats();
    const failures = results.filter((r): r is Error => r instanceof Error);
    if (failures.length > 0)
      process.stderr.write(`serve bench: ${failures.length} failed, first: ${failures[0]!.message}\n`);
    const firsts = results.filter((r): r is number => typeof r === 'number');
    const plainChild = child(['plain', baseURL, String(options.streams), String(options.warmup)]);
    const plain = (await plainChild.first) as { cpuMsPerRun: number };
    const servedPerRun = (after.cpuMs - before.cpuMs) / options.streams;
    return {
      streams: options.streams,
      failed: failures.length,
      firstEventP50Ms: quantile(firsts, 0.5),
      firstEventP99Ms: quantile(firsts, 0.99),
      peakRssMiB: after.peakRssMiB,
      servedOverPlain: servedPerRun / plain.cpuMsPerRun,
      cpuMsPerRun: { served: servedPerRun, plain: plain.cpuMsPerRun },
    };
  } finally {
    served.proc.kill('SIGTERM');
    await dispatcher.close();
  }
}
