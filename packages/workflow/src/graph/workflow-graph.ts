import { createHash } from 'node:crypto';
import { WorkflowError } from '../errors.js';
import type { Edge, GraphNode } from './graph-types.js';

/**
 * A validated, immutable graph: one start node, edges between existing nodes, no cycle except
 * through a bounded loopback edge. Nodes no path reaches are kept and listed in `warnings`.
 */
export class WorkflowGraph {
  readonly startNodeId: string;
  readonly nodes: ReadonlyMap<string, GraphNode>;
  readonly edges: readonly Edge[];
  /** Edges leaving each node, in the order they were added. */
  readonly outgoing: ReadonlyMap<string, readonly Edge[]>;
  readonly warnings: readonly string[];
  /** Changes whenever nodes, executors' kinds, edges or the start change: a checkpoint of another graph is refused. */
  readonly fingerprint: string;

  /** Use `WorkflowBuilder.build()`; this checks and freezes what the builder collected. */
  constructor(startNodeId: string | undefined, nodes: readonly GraphNode[], edges: readonly Edge[]) {
    const problems: string[] = [];
    const byId = new Map<string, GraphNode>();
    for (const node of nodes) {
      if (byId.has(node.id)) problems.push(`node "${node.id}" is added twice`);
      byId.set(node.id, node);
    }
    if (startNodeId === undefined) problems.push('no start node: call setStart(id)');
    else if (!byId.has(startNodeId)) problems.push(`start node "${startNodeId}" does not exist`);
    const outgoing = new Map<string, Edge[]>();
    for (const edge of edges) {
      for (const end of [...edge.sources, ...edge.targets]) {
        if (!byId.has(end)) problems.push(`edge ${edge.id} names node "${end}", which does not exist`);
      }
      if (edge.loopback && !(edge.loopback.maxIterations >= 1))
        problems.push(`loopback edge ${edge.id} needs maxIterations ≥ 1`);
      for (const source of edge.sources) {
        const list = outgoing.get(source) ?? [];
        list.push(edge);
        outgoing.set(source, list);
      }
    }
    if (problems.length === 0) problems.push(...cycles(byId, edges));
    if (problems.length > 0) {
      throw new WorkflowError('invalid-graph', `invalid workflow graph: ${problems.join('; ')}`);
    }
    this.startNodeId = startNodeId as string;
    this.nodes = byId;
    this.edges = Object.freeze([...edges]);
    this.outgoing = outgoing;
    const reached = reachable(this.startNodeId, outgoing);
    this.warnings = [...byId.keys()]
      .filter((id) => !reached.has(id))
      .map((id) => `node "${id}" is unreachable from the start node "${this.startNodeId}"`);
    this.fingerprint = fingerprintOf(this.startNodeId, nodes, edges);
    Object.freeze(this);
  }

  /** The output nodes, in the order they were added. */
  get outputNodeIds(): string[] {
    return [...this.nodes.values()].filter((n) => n.output).map((n) => n.id);
  }
}

function reachable(start: string, outgoing: ReadonlyMap<string, readonly Edge[]>): Set<string> {
  const seen = new Set([start]);
  const queue = [start];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    for (const edge of outgoing.get(node) ?? []) {
      for (const target of edge.targets) {
        if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
  }
  return seen;
}

/** Cycles that do not pass through a loopback edge (three-colour DFS). */
function cycles(nodes: ReadonlyMap<string, GraphNode>, edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    if (edge.loopback) continue;
    for (const source of edge.sources) next.set(source, [...(next.get(source) ?? []), ...edge.targets]);
  }
  const colour = new Map<string, 1 | 2>();
  const found: string[] = [];
  const visit = (id: string, path: string[]): void => {
    colour.set(id, 1);
    for (const target of next.get(id) ?? []) {
      const c = colour.get(target);
      if (c === 1) {
        const cycle = [...path.slice(path.indexOf(target)), target];
        found.push(`cycle ${cycle.join(' → ')} without a loopback edge (addLoopback with maxIterations)`);
      } else if (c === undefined) visit(target, [...path, target]);
    }
    colour.set(id, 2);
  };
  for (const id of nodes.keys()) if (!colour.has(id)) visit(id, [id]);
  return found;
}

function fingerprintOf(start: string, nodes: readonly GraphNode[], edges: readonly Edge[]): string {
  const shape = {
    start,
    nodes: nodes.map((n) => [n.id, n.executor.kind, n.output, n.executor.label ?? null]),
    edges: edges.map((e) => [
      e.id,
      e.kind,
      e.sources,
      e.targets,
      e.loopback?.maxIterations ?? 0,
      e.condition ? 'if' : '',
      (e.cases ?? []).map((c) => [c.target, c.when ? 'if' : 'default']),
    ]),
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 32);
}
