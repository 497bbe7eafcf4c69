import { parseYamlLimited } from '../io/parse-yaml.js';
import { lazyRequire } from '../lazy-require.js';

// Loaded with the first page read: importing the framework does not parse a YAML library.
const yaml = lazyRequire<typeof import('yaml')>('yaml');

export interface ParsedPage {
  data: Record<string, unknown>;
  body: string;
}

/** A page whose frontmatter cannot be read: `line` is 1-based within the file. */
export interface FrontmatterProblem {
  line: number;
  message: string;
}

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

/** Splits a page into its YAML frontmatter (parsed with a real YAML parser) and body. */
export function parseFrontmatter(text: string): ParsedPage | FrontmatterProblem {
  const match = FRONTMATTER.exec(text);
  if (!match) return { line: 1, message: "no YAML frontmatter (the page must start with '---')" };
  const { isMap } = yaml();
  // The shared YAML limits (alias count, size): a bundle page may have been written by anyone.
  const { document, value, problems } = parseYamlLimited(match[1] ?? '');
  const problem = problems[0];
  if (problem || !document) {
    return {
      line: (problem?.line ?? 1) + 1,
      message: `invalid YAML frontmatter: ${problem?.message ?? 'unreadable'}`,
    };
  }
  if (!isMap(document.contents)) return { line: 2, message: 'the frontmatter must be a mapping (type: …)' };
  return { data: value as Record<string, unknown>, body: text.slice(match[0].length) };
}

export function isFrontmatterProblem(value: ParsedPage | FrontmatterProblem): value is FrontmatterProblem {
  return 'message' in value;
}

/** A page: frontmatter (keys in the given order) and body. */
export function renderPage(data: Record<string, unknown>, body: string): string {
  return `---\n${yaml().stringify(data, { lineWidth: 0 }).trimEnd()}\n---\n\n${body.replace(/^\n+/, '')}`;
}
