import type { ExplainedWorkflow } from '@raf/decl';

type Graph = NonNullable<ExplainedWorkflow['graph']>;

const edgeText = (e: Graph['edges'][number]) =>
  [e.kind === 'direct' ? '' : e.kind, e.label ?? '', e.loopback ? `loop ≤${e.loopback}` : '']
    .filter(Boolean)
    .join(', ');

/** The graph as indented text: each node with its kind and where its edges go. */
export function graphText(workflow: ExplainedWorkflow): string[] {
  const lines = [
    `${workflow.kind === 'workflow' ? 'workflow' : `orchestration ${workflow.mode}`}: ${workflow.summary}`,
  ];
  if (workflow.subAgents.length > 0) lines.push(`sub-agents: ${workflow.subAgents.join(', ')}`);
  const graph = workflow.graph;
  if (!graph) return lines;
  lines.push('graph:');
  for (const node of graph.nodes) {
    const marks = [
      node.kind,
      node.label && node.label !== node.id ? node.label : '',
      node.id === graph.start ? 'start' : '',
      node.output ? 'output' : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`  ${node.id} (${marks})`);
    for (const edge of graph.edges.filter((e) => e.from === node.id)) {
      const text = edgeText(edge);
      lines.push(`    → ${edge.to}${text ? `  [${text}]` : ''}`);
    }
  }
  for (const warning of graph.warnings) lines.push(`warning: ${warning}`);
  return lines;
}

const safeId = (id: string) => id.replace(/[^A-Za-z0-9_]/g, '_');
const quoted = (text: string) => `"${text.replace(/"/g, '#quot;')}"`;

/** The graph as a Mermaid flowchart (`raf inspect --mermaid`). */
export function graphMermaid(workflow: ExplainedWorkflow): string {
  const graph = workflow.graph;
  if (!graph)
    return `flowchart TD\n  coordinator["${workflow.mode}"]\n${workflow.subAgents.map((a) => `  coordinator -. delegate .-> ${safeId(a)}[${quoted(a)}]`).join('\n')}\n`;
  const lines = ['flowchart TD'];
  for (const node of graph.nodes) {
    const label = quoted(node.label && node.label !== node.id ? `${node.id}: ${node.label}` : node.id);
    const shape =
      node.kind === 'agent'
        ? `[${label}]`
        : node.kind === 'human-input'
          ? `[/${label}/]`
          : node.output
            ? `([${label}])`
            : `(${label})`;
    lines.push(`  ${safeId(node.id)}${shape}`);
  }
  for (const edge of graph.edges) {
    const text = edgeText(edge);
    const arrow = edge.loopback ? '-.->' : '-->';
    lines.push(`  ${safeId(edge.from)} ${arrow}${text ? `|${quoted(text)}|` : ''} ${safeId(edge.to)}`);
  }
  return `${lines.join('\n')}\n`;
}
