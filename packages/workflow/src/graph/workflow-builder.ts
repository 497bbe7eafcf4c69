import type { Edge, EdgeCondition, Executor, GraphNode, NodeOptions, SwitchCase } from './graph-types.js';
import { WorkflowGraph } from './workflow-graph.js';

/**
 * Collects nodes and edges; `build()` validates them into an immutable `WorkflowGraph`.
 *
 * ```ts
 * const graph = new WorkflowBuilder()
 *   .addNode('upper', functionExecutor((s) => String(s).toUpperCase()))
 *   .addNode('done', functionExecutor((s) => `${s}!`), { output: true })
 *   .addEdge('upper', 'done')
 *   .setStart('upper')
 *   .build();
 * ```
 */
export class WorkflowBuilder {
  private start: string | undefined;
  private readonly nodes: GraphNode[] = [];
  private readonly edges: Edge[] = [];

  addNode(id: string, executor: Executor, options: NodeOptions = {}): this {
    this.nodes.push({ ...options, id, executor, output: options.output ?? false });
    return this;
  }

  setStart(id: string): this {
    this.start = id;
    return this;
  }

  /** Marks nodes whose output is a workflow output. */
  withOutputFrom(...ids: string[]): this {
    for (let i = 0; i < this.nodes.length; i++) {
      const node = this.nodes[i]!;
      if (ids.includes(node.id)) this.nodes[i] = { ...node, output: true };
    }
    return this;
  }

  /** A direct edge; with `when`, a conditional one (several may hold: an inclusive gateway). */
  addEdge(from: string, to: string, options: { when?: EdgeCondition; label?: string } = {}): this {
    return this.push({
      kind: 'direct',
      sources: [from],
      targets: [to],
      ...(options.when && { condition: options.when }),
      ...(options.label && { label: options.label }),
    });
  }

  /** The same message to every target (a parallel gateway). */
  addFanOut(from: string, to: readonly string[]): this {
    return this.push({ kind: 'fan-out', sources: [from], targets: [...to] });
  }

  /** A barrier: `to` runs once every source has sent a message, with all of them as an array. */
  addFanIn(from: readonly string[], to: string): this {
    return this.push({ kind: 'fan-in', sources: [...from], targets: [to] });
  }

  /** An exclusive gateway: the first case whose condition holds (a case without one is the default). */
  addSwitch(from: string, cases: readonly SwitchCase[]): this {
    return this.push({
      kind: 'switch',
      sources: [from],
      targets: cases.map((c) => c.target),
      cases: [...cases],
    });
  }

  /** An edge that closes a cycle, taken at most `maxIterations` times in a run. */
  addLoopback(
    from: string,
    to: string,
    options: { maxIterations: number; when?: EdgeCondition; label?: string },
  ): this {
    return this.push({
      kind: 'direct',
      sources: [from],
      targets: [to],
      loopback: { maxIterations: options.maxIterations },
      ...(options.when && { condition: options.when }),
      ...(options.label && { label: options.label }),
    });
  }

  build(): WorkflowGraph {
    return new WorkflowGraph(this.start, this.nodes, this.edges);
  }

  private push(edge: Omit<Edge, 'id'>): this {
    this.edges.push({ ...edge, id: `e${this.edges.length}` });
    return this;
  }
}
