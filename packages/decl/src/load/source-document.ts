import { extname } from 'node:path';
import { parseYamlLimited } from '@raf/framework';
import { type Document, isMap, isPair, isScalar, isSeq, type Node, visit } from 'yaml';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { formatPath } from '../diagnostics/diagnostic.js';
import { indexTomlPositions, pathKey } from './toml-positions.js';
import { yamlSyntaxProblems } from './yaml-syntax.js';

export type Path = readonly (string | number)[];

/** A parsed agent file: its plain value and a way back from a field path to a line and column. */
export interface SourceDocument {
  file: string;
  value: unknown;
  /** Position of the field's value, or of its key with `key: true`; the nearest parent if absent. */
  locate(path: Path, options?: { key?: boolean }): { line: number; column: number };
}

export type SourceFormat = 'yaml' | 'json' | 'toml';

/** An agent file is configuration, not data: larger than this, it is refused before parsing. */
export const AGENT_FILE_MAX_BYTES = 1024 * 1024;

export function formatOf(file: string): SourceFormat | undefined {
  const ext = extname(file).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.json') return 'json';
  if (ext === '.toml') return 'toml';
  return undefined;
}

function childOf(node: unknown, segment: string | number): { key?: Node; value?: Node } | undefined {
  if (isMap(node)) {
    const pair = node.items.find(
      (p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment),
    );
    return pair ? { key: pair.key as Node, value: (pair.value ?? undefined) as Node | undefined } : undefined;
  }
  if (isSeq(node) && typeof segment === 'number') {
    const item = node.items[segment] as Node | undefined;
    return item ? { value: item } : undefined;
  }
  return undefined;
}

const keyOf = (key: unknown): string => (isScalar(key) ? String(key.value) : String(key));

/** The field path of the repeated key at `offset`, and the offset of its first copy. */
function duplicateAt(doc: Document, offset: number): { path: Path; first?: number } | undefined {
  let found: { path: Path; first?: number } | undefined;
  visit(doc, {
    Pair(_, pair, ancestors) {
      if (!isScalar(pair.key) || pair.key.range?.[0] !== offset) return undefined;
      const path: (string | number)[] = [];
      ancestors.forEach((node, i) => {
        if (isPair(node)) path.push(keyOf(node.key));
        else if (isSeq(node)) path.push(node.items.indexOf(ancestors[i + 1] as never));
      });
      const key = keyOf(pair.key);
      const map = ancestors.at(-1);
      const first = isMap(map) ? map.items.find((p) => keyOf(p.key) === key) : undefined;
      const firstAt = isScalar(first?.key) ? first.key.range?.[0] : undefined;
      found = {
        path: [...path, key],
        ...(firstAt !== undefined && firstAt !== offset && { first: firstAt }),
      };
      return visit.BREAK;
    },
  });
  return found;
}

/** YAML (and JSON, a subset of it) through the `yaml` package, keeping every node's position. */
export function parseYamlSource(
  text: string,
  file: string,
): { document?: SourceDocument; problems: Diagnostic[] } {
  // The shared limits: an alias bomb stops at the alias limit, a huge file is not parsed at all.
  const parsed = parseYamlLimited(text, { uniqueKeys: true, merge: true, maxBytes: AGENT_FILE_MAX_BYTES });
  const { document: doc, lines } = parsed;
  const limitProblems = (): Diagnostic[] =>
    parsed.problems.map((problem) => ({
      file,
      line: problem.line,
      column: problem.column,
      path: '',
      message: problem.code === 'ALIAS_ERROR' ? `YAML alias error: ${problem.message}` : problem.message,
      severity: 'error',
    }));
  if (!doc || !lines) return { problems: limitProblems() };
  const position = (offset: number) => {
    const p = lines.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const duplicates = doc.errors.filter((e) => e.code === 'DUPLICATE_KEY');
  const problems: Diagnostic[] = duplicates.map((error): Diagnostic => {
    const duplicate = duplicateAt(doc, error.pos[0]);
    return {
      file,
      ...position(error.pos[0]),
      path: duplicate ? formatPath(duplicate.path) : '',
      message: duplicate
        ? `duplicate key '${duplicate.path.at(-1)}'${duplicate.first === undefined ? '' : ` (first on line ${position(duplicate.first).line})`}`
        : `duplicate key: ${error.message.split('\n')[0]}`,
      severity: 'error',
    };
  });
  for (const error of doc.errors) {
    if (error.code === 'MULTIPLE_DOCS')
      problems.push({
        file,
        ...position(error.pos[0]),
        path: '',
        message:
          'an agent file holds one YAML document; a second one starts here (remove this `---` and what follows, or split the file)',
        severity: 'error',
      });
  }
  problems.push(
    ...yamlSyntaxProblems(
      doc.errors.filter((e) => e.code !== 'DUPLICATE_KEY' && e.code !== 'MULTIPLE_DOCS'),
      text,
      lines,
      file,
    ),
  );
  if (problems.length > 0) return { problems };
  // No syntax error: what is left is the alias limit (a "billion laughs" file), located.
  if (parsed.problems.length > 0) return { problems: limitProblems() };
  const locate = (path: Path, options: { key?: boolean } = {}) => {
    let node: unknown = doc.contents;
    let found: Node | undefined = doc.contents ?? undefined;
    for (let i = 0; i < path.length; i++) {
      const child = childOf(node, path[i] as string | number);
      if (!child) break;
      const last = i === path.length - 1;
      found = (last && options.key && child.key ? child.key : (child.value ?? child.key)) ?? found;
      node = child.value;
    }
    return position(found?.range?.[0] ?? 0);
  };
  const value = parsed.value;
  return { document: { file, value, locate }, problems: [] };
}

/** TOML through the optional `smol-toml` package, with positions from a small index of the text. */
export async function parseTomlSource(
  text: string,
  file: string,
): Promise<{ document?: SourceDocument; problems: Diagnostic[] }> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > AGENT_FILE_MAX_BYTES) {
    const message = `the file is ${bytes} bytes, over the ${AGENT_FILE_MAX_BYTES}-byte limit`;
    return { problems: [{ file, line: 1, column: 1, path: '', message, severity: 'error' }] };
  }
  let toml: { parse(text: string): unknown };
  try {
    toml = (await import('smol-toml')) as { parse(text: string): unknown };
  } catch {
    return {
      problems: [
        {
          file,
          line: 1,
          column: 1,
          path: '',
          message: 'TOML agent files need the optional smol-toml package (pnpm add smol-toml)',
          severity: 'error',
        },
      ],
    };
  }
  try {
    const value = toml.parse(text);
    const positions = indexTomlPositions(text);
    const locate = (path: Path, options: { key?: boolean } = {}) => {
      for (let length = path.length; length > 0; length--) {
        const found = positions.get(pathKey(path.slice(0, length)));
        if (found) return (length === path.length && options.key && found.key) || found.value;
      }
      return { line: 1, column: 1 };
    };
    return { document: { file, value, locate }, problems: [] };
  } catch (error) {
    const e = error as { line?: number; column?: number; message: string };
    return {
      problems: [
        {
          file,
          line: e.line ?? 1,
          column: e.column ?? 1,
          path: '',
          message: `TOML syntax error: ${e.message.split('\n')[0]}`,
          severity: 'error',
        },
      ],
    };
  }
}

/** A diagnostic at a field of a document. */
export function diagnosticAt(
  document: SourceDocument,
  path: Path,
  message: string,
  severity: Diagnostic['severity'] = 'error',
  options: { key?: boolean; shownPath?: Path } = {},
): Diagnostic {
  return {
    file: document.file,
    ...document.locate(path, options),
    path: formatPath(options.shownPath ?? path),
    message,
    severity,
  };
}
