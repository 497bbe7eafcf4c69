import type { LineCounter, YAMLError } from 'yaml';
import type { Diagnostic } from '../diagnostics/diagnostic.js';

/**
 * The YAML parser's syntax errors as one problem per spot, in words about the file rather than the
 * grammar, at the column of the first character that is wrong, with the source line. The parser
 * often reports one mistake twice (a mis-indented key is both "nested mappings are not allowed in
 * compact mappings" and "implicit keys need to be on a single line") and at the start of a line's
 * indentation rather than at the key.
 */
export function yamlSyntaxProblems(
  errors: readonly YAMLError[],
  text: string,
  lines: LineCounter,
  file: string,
): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const seen = new Set<number>();
  const starts = new Set<number>();
  for (const error of errors) {
    // Two errors from one offset, or on a line already reported, are one mistake said again.
    if (starts.has(error.pos[0])) continue;
    starts.add(error.pos[0]);
    const offset = culpritOffset(error, text);
    const { line, col } = lines.linePos(offset);
    if (seen.has(line)) continue;
    seen.add(line);
    const source = sourceLineAt(text, lines, line);
    problems.push({
      file,
      line,
      column: col,
      path: '',
      message: `YAML syntax error: ${wording(error, source, text, lines, line)}`,
      severity: 'error',
      sourceLine: source,
    });
  }
  return problems;
}

/**
 * Where the mistake is. A key the parser took as the continuation of the value above it (it is
 * indented deeper than its siblings) is reported over the whole range: the key is on its last
 * line. Indentation errors point at the first non-blank character, not at the line's start.
 */
function culpritOffset(error: YAMLError, text: string): number {
  const [start] = error.pos;
  let at = start;
  if (isStrayKey(error, text)) {
    // The value at `start` runs on into the next line that holds something: the stray key.
    let next = text.indexOf('\n', start);
    while (next >= 0 && /^[ \t]*(\r?\n|$)/.test(text.slice(next + 1, next + 200)))
      next = text.indexOf('\n', next + 1);
    if (next >= 0) at = next + 1;
  }
  if (error.code === 'TAB_AS_INDENT') {
    const lineStart = text.lastIndexOf('\n', start - 1) + 1;
    const tab = text.indexOf('\t', lineStart);
    return tab >= 0 && tab <= start ? tab : start;
  }
  while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at++;
  return Math.min(at, text.length);
}

/** A key the parser read as the value above running on (it is indented deeper than its siblings). */
function isStrayKey(error: YAMLError, text: string): boolean {
  if (error.code !== 'MULTILINE_IMPLICIT_KEY' && error.code !== 'BLOCK_AS_IMPLICIT_KEY') return false;
  return !holdsColon(error, text);
}

/** `key: a: b`: a plain value holding `: ` on its own line, which YAML reads as a nested key. */
function holdsColon(error: YAMLError, text: string): boolean {
  const [start] = error.pos;
  const end = text.indexOf('\n', start);
  const rest = text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '');
  return /: |:$/.test(rest);
}

function sourceLineAt(text: string, lines: LineCounter, line: number): string {
  const from = lines.lineStarts[line - 1] ?? 0;
  const next = text.indexOf('\n', from);
  return text.slice(from, next < 0 ? text.length : next).replace(/\r$/, '');
}

const indentOf = (line: string) => /^ */.exec(line)?.[0].length ?? 0;

/** The nearest line above `line` that holds something, or undefined. */
function lineAbove(text: string, lines: LineCounter, line: number): string | undefined {
  for (let n = line - 1; n >= 1; n--) {
    const source = sourceLineAt(text, lines, n);
    if (source.trim() !== '' && !source.trim().startsWith('#')) return source;
  }
  return undefined;
}

function wording(error: YAMLError, source: string, text: string, lines: LineCounter, line: number): string {
  const above = lineAbove(text, lines, line);
  const columns =
    above === undefined
      ? ''
      : ` (this line starts at column ${indentOf(source) + 1}, the one above at column ${indentOf(above) + 1})`;
  switch (error.code) {
    case 'MULTILINE_IMPLICIT_KEY':
    case 'BLOCK_AS_IMPLICIT_KEY':
      if (holdsColon(error, text))
        return 'this value holds `: `, which YAML reads as a nested key; put the value in quotes';
      return `this key is indented deeper than the key above it${columns}; keys of one mapping start at the same column`;
    case 'BAD_INDENT':
      if (/end with a \}/.test(error.message))
        return 'a flow mapping `{ … }` is not closed: a `}` is missing';
      if (/end with a \]/.test(error.message)) return 'a flow list `[ … ]` is not closed: a `]` is missing';
      return `this line is not indented like the others of its block${columns}; items of one mapping or list start at the same column`;
    case 'TAB_AS_INDENT':
      return 'a tab indents this line; YAML indents with spaces only';
    case 'BAD_SCALAR_START':
      return `a plain value cannot start with \`${source.trim()[0] ?? ''}\` here; put the value in quotes`;
    case 'MISSING_CHAR':
      return /quote/i.test(error.message)
        ? 'a quoted value is not closed: the closing quote is missing'
        : `something is missing here (${firstLine(error)})`;
    case 'BLOCK_IN_FLOW':
      return 'a block (an indented mapping or a `- ` list) cannot sit inside `{ … }` or `[ … ]`';
    case 'UNEXPECTED_TOKEN':
      return `this cannot be read as YAML here (${firstLine(error)})`;
    default:
      return firstLine(error);
  }
}

/** The parser's own sentence, lower-cased to sit after a colon. */
function firstLine(error: YAMLError): string {
  const line = error.message.split('\n')[0] ?? '';
  return line.charAt(0).toLowerCase() + line.slice(1);
}
