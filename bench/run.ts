// `pnpm bench` runs every benchmark against a mock model server in a separate process and prints
// ratios measured in this one run. Flags: `--json` (figures as JSON), `--quick` (a smoke test:
// one short round), `--only client|loop|cold-run|search|cold-start|sandbox|web|memory|wiki|mcp|rag|workflow|delegate|store|serve|durable` (or several, comma-separated), `--search-tree generated` (the search
// benchmark on 50k generated files instead of a real node_modules tree), `--instructions` (count instructions with valgrind's
// callgrind instead of timing: repeatable where CPU times swing by ±30% between runs).
import { LOOP_ROUNDS, type LoopBenchResult, runColdWarmLoopBench, runLoopBench } from './agent-loop.js';
import { type ClientBenchResult, type ClientScenario, runClientBench } from './client-overhead.js';
import { type ColdRunResult, runColdRunBench } from './cold-run.js';
import { type ColdStartResult, runColdStartBench } from './cold-start.js';
import { type DelegateBenchResult, runDelegateBench } from './delegate.js';
import { type DurableBenchResult, runDurableBench } from './durable.js';
import { runSearchBench, type SearchBenchResult } from './file-search.js';
import type { Measurement, MeasureOptions } from './lib/measure.js';
import { startServerProcess } from './lib/server.js';
import { type McpBenchResult, runMcpBench } from './mcp.js';
import { type MemoryBenchResult, runMemoryBench } from './memory.js';
import { type RagBenchResult, runRagBench } from './rag.js';
import { runSandboxBench, type SandboxBenchResult } from './sandbox.js';
import { runServeBench, type ServeBenchResult } from './serve.js';
import { runStoreBench, type StoreBenchResult } from './store.js';
import { runWebBench, type WebBenchResult } from './web-fetch.js';
import { runWikiBench } from './wiki.js';
import { runWorkflowBench, type WorkflowBenchResult } from './workflow.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const quick = args.includes('--quick');
const instructions = args.includes('--instructions');
// `--only loop,cold-run`: the named sections alone, in one run (their ratios side by side).
const only = args.includes('--only') ? args[args.indexOf('--only') + 1]?.split(',') : undefined;
const wants = (section: string) => !only || only.includes(section);
const asked = (section: string) => only?.includes(section) ?? false;

const unit = instructions ? 'M instructions' : 'CPU ms';
const metric = (m: Measurement) => (instructions ? (m.instructionsPerOp ?? Number.NaN) / 1e6 : m.cpuMsPerOp);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const num = (v: number, width: number) => v.toFixed(3).padStart(width);
const rss = (m: Measurement) => (Number.isNaN(m.peakRssMiB) ? '-' : m.peakRssMiB.toFixed(0));

function clientOptions(): Record<ClientScenario, MeasureOptions> {
  if (quick)
    return { text2000: { rounds: 1, warmupOps: 5, ops: 5 }, tools20: { rounds: 1, warmupOps: 20, ops: 20 } };
  if (instructions) {
    return {
      text2000: { rounds: 1, warmupOps: 30, ops: 100, instructions },
      tools20: { rounds: 1, warmupOps: 100, ops: 500, instructions },
    };
  }
  return {
    text2000: { rounds: 5, warmupOps: 150, ops: 150 },
    tools20: { rounds: 5, warmupOps: 300, ops: 600 },
  };
}

/**
 * `cold`: a fresh process after 10 warm-up runs (a CLI run, a CI job, a serverless call: the JIT
 * has not settled). `warm`: after 500 (the JIT has settled for every contender; raf's deeper code
 * settles later than a hand loop). 7 alternating rounds: this machine's CPU times swing by ±30%.
 */
function loopOptions(kind: 'cold' | 'warm'): MeasureOptions {
  if (quick)
    return kind === 'cold' ? { rounds: 1, warmupOps: 1, ops: 2 } : { rounds: 1, warmupOps: 5, ops: 3 };
  if (instructions)
    return kind === 'cold'
      ? { rounds: 1, warmupOps: 10, ops: 20, instructions }
      : { rounds: 1, warmupOps: 100, ops: 300, instructions };
  return kind === 'cold' ? { rounds: 7, warmupOps: 10, ops: 20 } : { rounds: 7, warmupOps: 500, ops: 200 };
}

function printClient(result: ClientBenchResult): void {
  console.log(`Client overhead: ${unit} per streamed answer (contender process only; the server runs apart)`);
  console.log(
    'scenario  | floor (dispatch) | floorRequest | raf      | openai SDK | raf/floor | raf/floorRequest | peak RSS MiB floor/raf/openai',
  );
  for (const [name, r] of Object.entries(result)) {
    const [floor, floorRequest, raf, openai] = [
      metric(r.floor),
      metric(r.floorRequest),
      metric(r.raf),
      metric(r.openai),
    ];
    console.log(
      `${name.padEnd(9)} | ${num(floor, 16)} | ${num(floorRequest, 12)} | ${num(raf, 8)} | ${num(openai, 10)} | ${ratio(raf, floor).padStart(9)} | ${ratio(raf, floorRequest).padStart(16)} | ${rss(r.floor)}/${rss(r.raf)}/${rss(r.openai)}`,
    );
  }
  console.log('target: raf ≤ 1.20× floor (the hand loop on undici dispatch, the transport raf uses)\n');
}

function perRound(result: LoopBenchResult): Record<string, number> {
  return Object.fromEntries(Object.entries(result).map(([name, m]) => [name, metric(m) / LOOP_ROUNDS]));
}

function loopRatios(rounds: Record<string, number>) {
  return {
    rafOverFloor: rounds.raf! / rounds.floor!,
    rafOverFloorRequest: rounds.raf! / rounds.floorRequest!,
    rafOverFasterPeer: rounds.raf! / Math.min(rounds.openaiAgents!, rounds.aiSdk!),
  };
}

function printLoop(cold: LoopBenchResult, warm: LoopBenchResult): void {
  const [c, w] = [perRound(cold), perRound(warm)];
  console.log(
    `Agent loop: ${unit} per tool round (${LOOP_ROUNDS} rounds × 3 parallel trivial tools per run; agent process only)`,
  );
  console.log('cold: a fresh process after 10 warm-up runs; warm: after 500');
  console.log('contender     | cold      | ×floor | warm      | ×floor | peak RSS MiB (warm)');
  for (const name of Object.keys(warm)) {
    const label = name === 'floorRequest' ? 'floorRequest*' : name;
    console.log(
      `${label.padEnd(13)} | ${num(c[name]!, 9)} | ${ratio(c[name]!, c.floor!).padStart(6)} | ${num(w[name]!, 9)} | ${ratio(w[name]!, w.floor!).padStart(6)} | ${rss(warm[name as keyof LoopBenchResult]).padStart(12)}`,
    );
  }
  console.log(
    '* the same hand loop on undici.request() (a Readable per answer): a ratio below 1 against it is transport, not framework',
  );
  const [rc, rw] = [loopRatios(c), loopRatios(w)];
  console.log(
    `raf / faster peer: cold ${rc.rafOverFasterPeer.toFixed(2)}×, warm ${rw.rafOverFasterPeer.toFixed(2)}× (warm targets: raf ≤ 1.05× floor (issue 27), ≤ 0.5× the faster peer)\n`,
  );
}

function printColdRun(result: ColdRunResult): void {
  const fasterPeer = Math.min(result.openaiAgents, result.aiSdk);
  console.log(
    `One agent run in a fresh process (import, build, ${LOOP_ROUNDS} tool rounds against the mock server, exit): median wall ms`,
  );
  for (const [name, ms] of Object.entries(result))
    console.log(
      `${name.padEnd(15)} ${ms.toFixed(0).padStart(5)} ms  ${ratio(ms, result.floor).padStart(6)} floor`,
    );
  console.log(
    `raf / floor ${ratio(result.raf, result.floor)} (target ≤ 1.15×), raf / faster peer ${ratio(result.raf, fasterPeer)} (target ≤ 0.60×), raf / floorLateTierUp ${ratio(result.raf, result.floorLateTierUp)} (same exit trick as raf)\n`,
  );
}

function printSearch(result: SearchBenchResult, tree: string): void {
  const ms = (v: number | undefined) => (v === undefined ? 'n/a' : `${v.toFixed(1)} ms`);
  const over = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? 'n/a' : ratio(a, b);
  console.log(`File search over ${tree}: median wall time (page cache warm)`);
  console.log(`rg -n                 ${ms(result.rg)}`);
  console.log(`rg -n --sort=path     ${ms(result.rgSorted)}  ${over(result.rgSorted, result.rg)} rg`);
  console.log(`grep -rn              ${ms(result.grep)}`);
  console.log(
    `search_file (ripgrep) ${ms(result.searchRipgrep)}  ${over(result.searchRipgrep, result.rg)} rg (target ≤ 1.5×)`,
  );
  console.log(
    `search_file (walker)  ${ms(result.searchWalker)}  ${over(result.searchWalker, result.grep)} grep -rn (target ≤ 1×)`,
  );
  console.log(`rg --files -g         ${ms(result.rgFiles)}`);
  console.log(`find -name            ${ms(result.findName)}`);
  console.log(
    `find_files            ${ms(result.findFiles)}  ${over(result.findFiles, result.rgFiles)} rg --files (target ≤ 1.2×), ${over(result.findFiles, result.findName)} find\n`,
  );
}

const COLD_START_ROWS: [Exclude<keyof ColdStartResult, 'node'>, string, number | undefined][] = [
  ['importFramework', "import('@raf/framework')", 80],
  ['validate', 'raf validate', 80],
  ['inspect', 'raf inspect', undefined],
  ['runToFirstRequest', 'raf run, 1st request', 120],
  ['runToExit', 'raf run, to exit', undefined],
];

function printColdStart(cold: ColdStartResult, above: Omit<ColdStartResult, 'node'>): void {
  console.log('Cold start (whole processes, median wall ms, quickstart agent)');
  console.log(`node -e 0              ${cold.node.toFixed(0)} ms`);
  for (const [key, label, target] of COLD_START_ROWS)
    console.log(
      `${label.padEnd(22)} ${cold[key].toFixed(0)} ms  (+${above[key].toFixed(0)} ms over node${target ? `; target ≤ +${target}` : ''})`,
    );
  console.log('');
}

function printSandbox(result: SandboxBenchResult): void {
  const ms = (v: number | undefined) => (v === undefined ? 'n/a' : `${v.toFixed(2)} ms`);
  console.log('Code interpreter (median wall ms per call)');
  console.log(`JavaScript, new session   ${ms(result.jsColdMs)}  (target ≤ 30 ms)`);
  console.log(`JavaScript, warm call     ${ms(result.jsWarmMs)}  (target ≤ 2 ms)`);
  console.log(`JavaScript, new tool      ${ms(result.jsNewToolMs)}  (worker thread start included)`);
  console.log(`Python in bubblewrap      ${ms(result.pyColdMs)}  (target ≤ 150 ms)`);
  console.log(`bare python3 -c           ${ms(result.pyFloorMs)}\n`);
}

function printWeb(result: WebBenchResult): void {
  const kib = (result.pageBytes / 1024).toFixed(0);
  console.log(
    `web_fetch, mode markdown (Readability + Turndown), ${kib} KiB pages from 127.0.0.1: median per fetch`,
  );
  console.log(
    `news page   ${result.fetchReadabilityMarkdownMs.toFixed(1)} CPU ms (target ≤ 150), ${result.fetchReadabilityMarkdownWallMs.toFixed(1)} wall ms; ${result.markdownChars.news} chars of Markdown`,
  );
  console.log(
    `dense page  ${result.fetchReadabilityMarkdownDenseMs.toFixed(1)} CPU ms (1 MB of article text: the worst case, no target); ${result.markdownChars.dense} chars\n`,
  );
}

function printMemory(result: MemoryBenchResult): void {
  console.log(`Memory (super-brain) on ${result.pages} pages: median wall ms per call`);
  console.log(`index build (first recall) ${result.indexBuildMs.toFixed(0)} ms`);
  console.log(`memory_recall               ${result.recallP50Ms.toFixed(2)} ms (target ≤ 30)`);
  console.log(`memory_save                 ${result.saveP50Ms.toFixed(2)} ms (target ≤ 10)\n`);
}

function printDelegate(r: DelegateBenchResult): void {
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  console.log('Sub-agent delegation (median wall ms)');
  console.log(
    `worker start, warm pool   ${ms(r.workerStartMs)}  (delegation → first model request; target ≤ 80 ms)`,
  );
  console.log(`worker start, no spare    ${ms(r.coldWorkerStartMs)}`);
  console.log(`inline                    ${ms(r.inlineMs)}`);
  console.log(
    `proxied tool call         ${ms(r.proxyCallMs)}  (round trip seen in the worker; target ≤ 2 ms)`,
  );
  console.log(`worker-local tool call    ${ms(r.localCallMs)}\n`);
}

function mcpOptions(): MeasureOptions {
  if (quick) return { rounds: 1, warmupOps: 20, ops: 50 };
  if (instructions) return { rounds: 1, warmupOps: 300, ops: 1000, instructions };
  return { rounds: 5, warmupOps: 500, ops: 1500 };
}

function printMcp(result: McpBenchResult): void {
  const [raf, sdk] = [metric(result.raf), metric(result.sdk)];
  console.log(
    `MCP tool call: ${unit} per call (server-everything's echo over stdio; contender process only)`,
  );
  console.log(`sdk (bare Client.callTool)   ${num(sdk, 8)}   peak RSS ${rss(result.sdk)} MiB`);
  console.log(`raf (the agent's MCP tool)   ${num(raf, 8)}   peak RSS ${rss(result.raf)} MiB`);
  console.log(`raf / sdk: ${ratio(raf, sdk)} (target ≤ 1.10×)\n`);
}

function printRag(r: RagBenchResult): void {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(
    `Knowledge base (@raf/rag): ${r.lexical.documents} documents, ${r.lexical.chunks} chunks lexical; ${r.hybrid.chunks} chunks hybrid (384-d)`,
  );
  console.log('contender        | docs/s index | query p50 | query p95 | peak RSS MiB (indexing)');
  const row = (name: string, x: RagBenchResult['lexical']) =>
    console.log(
      `${name.padEnd(16)} | ${x.indexDocsPerSec.toFixed(0).padStart(12)} | ${ms(x.queryP50Ms).padStart(9)} | ${ms(x.queryP95Ms).padStart(9)} | ${x.indexPeakRssMiB.toFixed(0)}`,
    );
  row('raf lexical', r.lexical);
  row('minisearch', r.minisearch);
  row('raf hybrid', r.hybrid);
  console.log(
    `raf/minisearch: index ${ratio(r.minisearch.indexDocsPerSec, r.lexical.indexDocsPerSec)} the time, query p50 ${ratio(r.lexical.queryP50Ms, r.minisearch.queryP50Ms)}; targets: p50 ≤ 20 ms, p95 ≤ 50 ms, indexing RSS ≤ 500 MiB\n`,
  );
}

function printWorkflow(r: WorkflowBenchResult): void {
  const ms = (v: number) => `${(v * 1000).toFixed(1)} µs`;
  console.log('Workflow engine: CPU per node (function nodes, a checkpoint in memory after every superstep)');
  console.log('scenario          | raf       | langgraph  | raf/langgraph');
  for (const [name, s] of Object.entries(r.scenarios))
    console.log(
      `${`${name} (${s.nodes})`.padEnd(17)} | ${ms(s.raf).padStart(9)} | ${ms(s.langgraph).padStart(10)} | ${ratio(s.raf, s.langgraph)}`,
    );
  console.log(
    `per node: raf ${ms(r.rafPerNodeMs)}, langgraph ${ms(r.langgraphPerNodeMs)}: ${ratio(r.rafPerNodeMs, r.langgraphPerNodeMs)} (target ≤ 0.5×)\n`,
  );
}

function printStore(r: StoreBenchResult): void {
  const ms = (v: number | null) => (v === null ? 'n/a (no PostgreSQL binaries)' : `${v.toFixed(2)} ms`);
  console.log(
    'State stores: wall time, p50 (save: a 50-message session; journal: the 3 appends of one tool round)',
  );
  for (const name of ['file', 'sqlite', 'postgres'] as const)
    console.log(
      `${name.padEnd(8)} save ${ms(r.saveP50Ms[name])}, journal per round ${ms(r.journalRoundP50Ms[name])}`,
    );
  console.log(
    `agent loop per tool round: ${r.loopRoundMs.plain.toFixed(3)} ms, with the file journal ${r.loopRoundMs.fileJournal.toFixed(3)} ms: ${ratio(r.loopRoundMs.fileJournal, r.loopRoundMs.plain)} (target ≤ 1.15×; Postgres journal ≤ 3 ms per step)\n`,
  );
}

function printServe(r: ServeBenchResult): void {
  console.log(
    `raf serve: ${r.streams} concurrent SSE streams of a ${LOOP_ROUNDS}-round run (one replica, memory store)`,
  );
  console.log(
    `failed ${r.failed}; first event p50 ${r.firstEventP50Ms.toFixed(1)} ms, p99 ${r.firstEventP99Ms.toFixed(1)} ms; server peak RSS ${r.peakRssMiB.toFixed(0)} MiB`,
  );
  console.log(
    `CPU per run: served ${r.cpuMsPerRun.served.toFixed(2)} ms, in-process ${r.cpuMsPerRun.plain.toFixed(2)} ms: ${ratio(r.cpuMsPerRun.served, r.cpuMsPerRun.plain)} (target ≤ 1.3×; 0 failed)\n`,
  );
}

function printDurable(r: DurableBenchResult | null): void {
  if (!r) {
    console.log('Durable runs: n/a (no PostgreSQL binaries)\n');
    return;
  }
  console.log('Durable runs (DBOS on a local throwaway Postgres): wall time, p50');
  console.log(
    `step overhead ${r.stepOverheadMs.toFixed(2)} ms per model/tool call (${r.stepOverheadCpuMs.toFixed(2)} CPU ms; target ≤ 5 ms); a ${r.stepsPerRun}-step run ${r.runMs.durable.toFixed(1)} ms vs ${r.runMs.plain.toFixed(1)} ms plain`,
  );
  console.log(
    `recovery after kill -9 ${r.recoveryMs.toFixed(0)} ms (target ≤ 2000 ms); queue dispatch ${r.dispatchMs.toFixed(1)} ms (target ≤ 60 ms)\n`,
  );
}

const wantsModel = wants('client') || wants('loop') || wants('cold-run') || wants('store') || wants('serve');
const server = wantsModel ? await startServerProcess() : undefined;
try {
  const output: Record<string, unknown> = { unit: instructions ? 'M instructions' : 'CPU ms' };
  if (wants('search') && !instructions) {
    // The real tree (the repository's node_modules/.pnpm, hard-linked to ~100k files) unless
    // `--search-tree generated` (50k small files) or `--quick` (2k generated files).
    const tree = quick || args.includes('generated') ? 'generated' : 'real';
    const { files, ...search } = await runSearchBench({
      tree,
      files: quick ? 2_000 : tree === 'real' ? 100_000 : 50_000,
      runs: quick ? 1 : 5,
    });
    if (json) output.search = { tree, files, wallMs: search };
    else printSearch(search, `${files} files (${tree} tree)`);
  }
  if (wants('memory') && !instructions) {
    const memory = await runMemoryBench(quick ? { pages: 500, calls: 10 } : { pages: 5_000, calls: 100 });
    if (json) output.memory = memory;
    else printMemory(memory);
  }
  if (wants('wiki') && !instructions) {
    const wiki = await runWikiBench(quick ? 1 : 5);
    if (json) output.wiki = wiki;
    else
      console.log(
        `Wiki open (one large markdown page): 43 KB ${wiki.open43KbMs.toFixed(0)} ms, 172 KB ${wiki.open172KbMs.toFixed(0)} ms (${wiki.ratio.toFixed(1)}×; linear ≈ 4×)\n`,
      );
  }
  if (wants('cold-start') && !instructions) {
    const cold = await runColdStartBench(quick ? 3 : 25);
    if (!cold) {
      if (asked('cold-start')) throw new Error('the cold-start benchmark needs the built CLI: pnpm build');
      console.error('cold start skipped: the CLI is not built (pnpm bench builds first)');
    } else {
      const { node, ...processes } = cold;
      const above = Object.fromEntries(
        Object.entries(processes).map(([name, ms]) => [name, ms - node]),
      ) as Omit<ColdStartResult, 'node'>;
      if (json) output.coldStart = { wallMs: cold, aboveNodeMs: above };
      else printColdStart(cold, above);
    }
  }
  if (wants('sandbox') && !instructions) {
    const sandbox = await runSandboxBench(quick ? 3 : 20);
    if (json) output.sandbox = sandbox;
    else printSandbox(sandbox);
  }
  if (wants('web') && !instructions) {
    const web = await runWebBench(quick ? { warmup: 1, runs: 3 } : { warmup: 5, runs: 21 });
    if (json) output.web = web;
    else printWeb(web);
  }

  if (wants('rag') && !instructions) {
    const rag = await runRagBench(
      quick ? { docs: 300, vectorDocs: 300, queries: 40 } : { docs: 10_000, vectorDocs: 2_000, queries: 200 },
    );
    if (json)
      output.rag = {
        indexDocsPerSec: rag.lexical.indexDocsPerSec,
        queryP50Ms: rag.lexical.queryP50Ms,
        queryP95Ms: rag.lexical.queryP95Ms,
        ...rag,
      };
    else printRag(rag);
  }
  if (wants('delegate') && !instructions) {
    const delegate = await runDelegateBench(quick ? { runs: 2, calls: 10 } : { runs: 15, calls: 200 });
    if (json) output.delegate = delegate;
    else printDelegate(delegate);
  }
  if (server && wants('client')) {
    const client = await runClientBench(server.baseURL, clientOptions());
    if (json) {
      output.client = Object.fromEntries(
        Object.entries(client).map(([name, r]) => [
          name,
          {
            raf: metric(r.raf),
            floor: metric(r.floor),
            floorRequest: metric(r.floorRequest),
            openai: metric(r.openai),
            rafOverFloor: metric(r.raf) / metric(r.floor),
            peakRssMiB: { raf: r.raf.peakRssMiB, floor: r.floor.peakRssMiB, openai: r.openai.peakRssMiB },
          },
        ]),
      );
    } else printClient(client);
  }
  if (server && wants('loop')) {
    // Under valgrind each figure is its own pair of runs; timed, both come from the same processes.
    const { cold, warm } = instructions
      ? {
          cold: await runLoopBench(server.baseURL, loopOptions('cold')),
          warm: await runLoopBench(server.baseURL, loopOptions('warm')),
        }
      : await runColdWarmLoopBench(
          server.baseURL,
          loopOptions('warm').rounds,
          loopOptions('cold'),
          loopOptions('warm'),
        );
    if (json) {
      output.loop = { cold: perRound(cold), warm: perRound(warm) };
      output.loopRatios = { cold: loopRatios(perRound(cold)), warm: loopRatios(perRound(warm)) };
      output.loopPeakRssMiB = Object.fromEntries(
        Object.entries(warm).map(([name, m]) => [name, m.peakRssMiB]),
      );
    } else printLoop(cold, warm);
  }
  if (server && wants('cold-run') && !instructions) {
    const coldRun = await runColdRunBench(server.baseURL, quick ? 1 : 15, { check: !quick });
    if (!coldRun) {
      if (asked('cold-run')) throw new Error('the cold-run benchmark needs the built packages: pnpm build');
      console.error('cold run skipped: the packages are not built (pnpm bench builds first)');
    } else if (json) {
      output.coldRun = coldRun;
      output.coldRunRatios = {
        rafOverFloor: coldRun.raf / coldRun.floor,
        rafOverFloorLateTierUp: coldRun.raf / coldRun.floorLateTierUp,
        rafOverFasterPeer: coldRun.raf / Math.min(coldRun.openaiAgents, coldRun.aiSdk),
      };
    } else printColdRun(coldRun);
  }
  if (wants('workflow') && !instructions) {
    const workflow = await runWorkflowBench(quick ? { rounds: 1, runs: 1 } : { rounds: 5, runs: 10 });
    if (json) output.workflow = workflow;
    else printWorkflow(workflow);
  }
  if (wants('store') && !instructions && server) {
    const store = await runStoreBench(
      server.baseURL,
      LOOP_ROUNDS,
      quick ? { runs: 5, loopRuns: 5 } : { runs: 200, loopRuns: 100 },
    );
    if (json) output.store = store;
    else printStore(store);
  }
  if (wants('serve') && !instructions && server) {
    const serve = await runServeBench(
      server.baseURL,
      quick ? { streams: 20, warmup: 0 } : { streams: 500, warmup: 100 },
    );
    if (json) {
      const { cpuMsPerRun: _, ...row } = serve;
      output.serve = row;
    } else printServe(serve);
  }
  if (wants('durable') && !instructions) {
    const durable = await runDurableBench(quick ? { runs: 2, kills: 1 } : { runs: 20, kills: 5 });
    if (json) output.durable = durable;
    else printDurable(durable);
  }
  if (wants('mcp')) {
    const mcp = await runMcpBench(mcpOptions());
    if (json)
      output.mcp = {
        callMs: metric(mcp.raf),
        sdkCallMs: metric(mcp.sdk),
        callOverSdk: metric(mcp.raf) / metric(mcp.sdk),
      };
    else printMcp(mcp);
  }
  if (json) console.log(JSON.stringify(output));
} finally {
  await server?.stop();
}
