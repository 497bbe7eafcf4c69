import type { KnowledgeHit } from '../knowledge/knowledge-types.js';

/** The instructions block: numbered passages, each under its source and heading. */
export function formatHits(name: string, hits: readonly KnowledgeHit[], maxChars: number): string {
  const lines = [
    `## Knowledge: ${name}`,
    'Passages from the knowledge base that may answer the latest message. Cite the source when you use one; call knowledge_search for more.',
  ];
  let budget = maxChars;
  hits.forEach((hit, i) => {
    const where = hit.heading ? `${hit.source} — ${hit.heading}` : hit.source;
    const text = hit.text.length > budget ? `${hit.text.slice(0, Math.max(0, budget))}…` : hit.text;
    budget -= text.length;
    if (text.length > 1) lines.push('', `[${i + 1}] ${where}`, text);
  });
  return lines.join('\n');
}
