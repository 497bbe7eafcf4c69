// Per-node cost of the graph engine: a 1,000-node chain and a 100-way fan-out/fan-in of trivial
// function nodes, each run checkpointing every superstep in memory, against @langchain/langgraph
// (StateGraph + MemorySaver) in the same process. CPU time of alternating rounds, medians.
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import {
  functionExecutor,
  InMemoryCheckpointStore,
  passThrough,
  Workflow,
  WorkflowBuilder,
} from '@raf/workflow';

export interface WorkflowBenchResult {
  rafPerNodeMs: number;
  langgraphPerNodeMs: number;
  scenarios: Record<'chain1000' | 'fan100', { raf: number; langgraph: number; nodes: number }>;
}

type Run = () => Promise<void>;

const CHAIN = 1000;
const FAN = 100;

function rafChain(): Run {
  const builder = new WorkflowBuilder().setStart('n0');
  for (let i = 0; i < CHAIN; i++) {
    builder.addNode(
      `n${i}`,
      functionExecutor((x) => (x as number) + 1),
      { output: i === CHAIN - 1 },
    );
    if (i > 0) builder.addEdge(`n${i - 1}`, `n${i}`);
  }
  const workflow = new Workflow(builder.build());
  let run = 0;
  return async () => {
    const result = await workflow.run(0, { runId: `c${run++}`, checkpoints: new InMemoryCheckpointStore() })
      .result;
    if (result.outputs[0]?.value !== CHAIN) throw new Error('raf chain: wrong result');
  };
}

function rafFan(): Run {
  const builder = new WorkflowBuilder().addNode('src', passThrough()).setStart('src');
  const ids = Array.from({ length: FAN }, (_, i) => `w${i}`);
  ids.forEach((id, i) => {
    builder.addNode(
      id,
      functionExecutor((x) => (x as number) + i),
    );
  });
  builder
    .addFanOut('src', ids)
    .addNode(
      'sink',
      functionExecutor((xs) => (xs as number[]).reduce((a, b) => a + b, 0)),
      { output: true },
    )
    .addFanIn(ids, 'sink');
  const workflow = new Workflow(builder.build(), { maxParallel: FAN });
  let run = 0;
  return async () => {
    const result = await workflow.run(1, { runId: `f${run++}`, checkpoints: new InMemoryCheckpointStore() })
      .result;
    if (result.outputs[0]?.value !== FAN + (FAN * (FAN - 1)) / 2) throw new Error('raf fan: wrong result');
  };
}

// LangGraph's builder types track node names statically; a generated graph goes through this view.
interface DynamicGraph {
  addNode(name: string, fn: (state: never) => unknown): DynamicGraph;
  addEdge(from: string | string[], to: string): DynamicGraph;
  compile(options: { checkpointer: MemorySaver }): {
    invoke(input: unknown, config: unknown): Promise<Record<string, unknown>>;
  };
}

function langgraphChain(): Run {
  const State = Annotation.Root({ value: Annotation<number>() });
  const graph = new StateGraph(State) as unknown as DynamicGraph;
  for (let i = 0; i < CHAIN; i++) graph.addNode(`n${i}`, (s: { value: number }) => ({ value: s.value + 1 }));
  graph.addEdge(START, 'n0');
  for (let i = 1; i < CHAIN; i++) graph.addEdge(`n${i - 1}`, `n${i}`);
  graph.addEdge(`n${CHAIN - 1}`, END);
  const app = graph.compile({ checkpointer: new MemorySaver() });
  let run = 0;
  return async () => {
    const out = await app.invoke(
      { value: 0 },
      { configurable: { thread_id: `c${run++}` }, recursionLimit: CHAIN + 10 },
    );
    if (out.value !== CHAIN) throw new Error('langgraph chain: wrong result');
  };
}

function langgraphFan(): Run {
  const State = Annotation.Root({
    value: Annotation<number>(),
    parts: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    total: Annotation<number>(),
  });
  const graph = new StateGraph(State) as unknown as DynamicGraph;
  const ids = Array.from({ length: FAN }, (_, i) => `w${i}`);
  graph.addNode('src', () => ({}));
  ids.forEach((id, i) => {
    graph.addNode(id, (s: { value: number }) => ({ parts: [s.value + i] }));
  });
  graph.addNode('sink', (s: { parts: number[] }) => ({ total: s.parts.reduce((a, b) => a + b, 0) }));
  graph.addEdge(START, 'src');
  for (const id of ids) graph.addEdge('src', id);
  graph.addEdge(ids, 'sink');
  graph.addEdge('sink', END);
  const app = graph.compile({ checkpointer: new MemorySaver() });
  let run = 0;
  return async () => {
    const out = await app.invoke({ value: 1 }, { configurable: { thread_id: `f${run++}` } });
    if (out.total !== FAN + (FAN * (FAN - 1)) / 2) throw new Error('langgraph fan: wrong result');
  };
}

async function cpuMs(run: Run, times: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < times; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / times;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;

export async function runWorkflowBench(options: {
  rounds: number;
  runs: number;
}): Promise<WorkflowBenchResult> {
  const contenders = {
    chain1000: { nodes: CHAIN, raf: rafChain(), langgraph: langgraphChain() },
    fan100: { nodes: FAN + 2, raf: rafFan(), langgraph: langgraphFan() },
  };
  const scenarios = {} as WorkflowBenchResult['scenarios'];
  for (const [name, c] of Object.entries(contenders) as [
    keyof typeof contenders,
    (typeof contenders)['chain1000'],
  ][]) {
    // Warm-up: both JITs settle before anything is measured.
    await cpuMs(c.raf, options.runs);
    await cpuMs(c.langgraph, options.runs);
    const raf: number[] = [];
    const langgraph: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      raf.push(await cpuMs(c.raf, options.runs));
      langgraph.push(await cpuMs(c.langgraph, options.runs));
    }
    scenarios[name] = { nodes: c.nodes, raf: median(raf) / c.nodes, langgraph: median(langgraph) / c.nodes };
  }
  const mean = (key: 'raf' | 'langgraph') => (scenarios.chain1000[key] + scenarios.fan100[key]) / 2;
  return { rafPerNodeMs: mean('raf'), langgraphPerNodeMs: mean('langgraph'), scenarios };
}
