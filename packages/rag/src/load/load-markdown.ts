import type { LoadedDocument } from './document.js';

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\r?\n?/;

/** Splits YAML frontmatter off a markdown text; frontmatter that does not parse stays as text. */
export async function splitFrontmatter(
  text: string,
): Promise<{ data: Record<string, unknown>; body: string }> {
  const match = FRONTMATTER.exec(text);
  if (!match) return { data: {}, body: text };
  // The YAML parser is loaded only for files that have frontmatter (not at import); the shared
  // limits (alias count, size) hold, as a source is text from outside.
  const { parseYamlLimited } = await import('@raf/framework');
  const { value: data, problems } = parseYamlLimited(match[1] as string);
  if (problems.length > 0) return { data: {}, body: text };
  if (data && typeof data === 'object' && !Array.isArray(data))
    return { data: data as Record<string, unknown>, body: text.slice(match[0].length) };
  return { data: {}, body: text.slice(match[0].length) };
}

/** The first `# heading` of a markdown text. */
export function firstHeading(markdown: string): string | undefined {
  return /^ {0,3}#[ \t]+(.+?)[ \t#]*$/m.exec(markdown)?.[1]?.trim();
}

export async function loadMarkdown(text: string): Promise<LoadedDocument> {
  const { data, body } = await splitFrontmatter(text);
  const title = typeof data.title === 'string' ? data.title : firstHeading(body);
  return {
    format: 'markdown',
    ...(title !== undefined && { title }),
    parts: [{ text: body, markdown: true, headings: [] }],
  };
}

export function loadText(text: string): LoadedDocument {
  return { format: 'text', parts: [{ text, markdown: false, headings: [] }] };
}
