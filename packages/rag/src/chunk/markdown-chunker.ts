import type { Chunk, ChunkOptions } from './chunk.js';
import { chunkRecursive } from './recursive-chunker.js';

interface Section {
  headings: string[];
  body: string;
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Markdown sections by ATX heading (`#`…`######`), ignoring `#` lines inside fenced code. */
export function markdownSections(markdown: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let lines: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    const body = lines.join('\n').trim();
    if (body) sections.push({ headings: [...path], body });
    lines = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    const fenced = FENCE.exec(line);
    if (fenced) {
      const marker = fenced[1] as string;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    }
    const heading = fence === undefined && !fenced ? HEADING.exec(line) : null;
    if (!heading) {
      lines.push(line);
      continue;
    }
    flush();
    const level = (heading[1] as string).length;
    path.length = Math.min(path.length, level - 1);
    while (path.length < level - 1) path.push('');
    path.push((heading[2] as string).trim());
  }
  flush();
  return sections.map((s) => ({ ...s, headings: s.headings.filter(Boolean) }));
}

/**
 * Markdown-aware chunking: each section (text under one heading) is chunked on its own with the
 * recursive chunker, so a chunk never spans two sections, and carries its heading path.
 */
export function chunkMarkdown(markdown: string, options: ChunkOptions = {}): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of markdownSections(markdown)) {
    for (const text of chunkRecursive(section.body, options))
      chunks.push({ text, headings: section.headings });
  }
  return chunks;
}
