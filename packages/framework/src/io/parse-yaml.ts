import { ConfigError } from '@raf/core';
import type { Document, DocumentOptions, LineCounter, ParseOptions, SchemaOptions } from 'yaml';
import { lazyRequire } from '../lazy-require.js';

// Loaded with the first YAML text: importing the framework does not load a YAML library.
const yaml = lazyRequire<typeof import('yaml')>('yaml');

/**
 * The limits every YAML text RAF parses is held to (SPEC §9): an alias limit against
 * "billion laughs" documents (a few hundred bytes of nested `*alias` expand to gigabytes and
 * block the event loop), and a size cap, so parsing is bounded whatever the file holds.
 */
export const YAML_LIMITS = Object.freeze({
  /** Alias expansions allowed in one document (the `yaml` package's `maxAliasCount`). */
  maxAliasCount: 100,
  /** Largest YAML text parsed, in bytes of UTF-8, unless the caller says otherwise. */
  maxBytes: 1024 * 1024,
});

export interface YamlLimitOptions
  extends Pick<ParseOptions, 'uniqueKeys'>,
    Pick<DocumentOptions, 'version'>,
    Pick<SchemaOptions, 'merge'> {
  /** Default `YAML_LIMITS.maxBytes`. */
  maxBytes?: number;
  /** Default `YAML_LIMITS.maxAliasCount`. */
  maxAliasCount?: number;
}

/** Why a YAML text was not read: a `yaml` error code, `TOO_LARGE` or `ALIAS_LIMIT`; 1-based position. */
export interface YamlProblem {
  code: string;
  message: string;
  offset: number;
  line: number;
  column: number;
}

export interface ParsedYaml {
  /** Absent when the text is over the size cap (it was not parsed at all). */
  document?: Document;
  lines?: LineCounter;
  /** The plain value, when there are no problems. */
  value?: unknown;
  problems: YamlProblem[];
}

/** The alias where expansion starts to nest: an alias of a node that itself holds aliases. */
function firstNestedAlias(document: Document): number {
  const { isAlias, visit } = yaml();
  let first: number | undefined;
  let nested: number | undefined;
  visit(document, {
    Alias(_key, node) {
      const at = node.range?.[0] ?? 0;
      first ??= at;
      const target = node.resolve(document);
      let holdsAlias = false;
      if (target)
        visit(target, {
          Alias() {
            holdsAlias = true;
            return visit.BREAK;
          },
        });
      if (holdsAlias && isAlias(node)) {
        nested = at;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return nested ?? first ?? 0;
}

/** Where the alias an error message ends with (`…: name`) is used, or 0. */
function aliasNamed(document: Document, message: string): number {
  const name = /: (\S+)$/.exec(message)?.[1];
  let found = 0;
  if (name)
    yaml().visit(document, {
      Alias(_key, node) {
        if (node.source !== name) return undefined;
        found = node.range?.[0] ?? 0;
        return yaml().visit.BREAK;
      },
    });
  return found;
}

/**
 * Parses one YAML document (JSON is YAML) within `YAML_LIMITS`, keeping the document and its line
 * counter for callers that locate fields. A text over the size cap is not parsed; an alias bomb
 * stops at the alias limit with a problem at the alias where the nesting starts.
 */
export function parseYamlLimited(text: string, options: YamlLimitOptions = {}): ParsedYaml {
  const maxBytes = options.maxBytes ?? YAML_LIMITS.maxBytes;
  // Cheap upper bound first (a UTF-16 unit is at most 3 UTF-8 bytes), exact count only if needed.
  if (text.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > maxBytes)
      return {
        problems: [
          {
            code: 'TOO_LARGE',
            message: `the YAML text is ${bytes} bytes, over the ${maxBytes}-byte limit`,
            offset: 0,
            line: 1,
            column: 1,
          },
        ],
      };
  }
  const { LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const document = parseDocument(text, {
    lineCounter: lines,
    prettyErrors: false,
    ...(options.uniqueKeys !== undefined && { uniqueKeys: options.uniqueKeys }),
    ...(options.version !== undefined && { version: options.version }),
    ...(options.merge !== undefined && { merge: options.merge }),
  });
  const at = (offset: number) => {
    const position = lines.linePos(offset);
    return { offset, line: position.line, column: position.col };
  };
  if (document.errors.length > 0)
    return {
      document,
      lines,
      problems: document.errors.map((error) => ({
        code: error.code,
        message: error.message.split('\n')[0] ?? error.code,
        ...at(error.pos[0]),
      })),
    };
  try {
    const value = document.toJS({ maxAliasCount: options.maxAliasCount ?? YAML_LIMITS.maxAliasCount });
    return { document, lines, value, problems: [] };
  } catch (error) {
    const message = (error as Error).message;
    const excessive = /excessive alias count/i.test(message);
    return {
      document,
      lines,
      problems: [
        {
          code: excessive ? 'ALIAS_LIMIT' : 'ALIAS_ERROR',
          message: excessive
            ? `too many alias expansions (over ${options.maxAliasCount ?? YAML_LIMITS.maxAliasCount}): nested *aliases like these expand exponentially ("billion laughs")`
            : message,
          ...at(excessive ? firstNestedAlias(document) : aliasNamed(document, message)),
        },
      ],
    };
  }
}

/**
 * The value of a YAML text within `YAML_LIMITS`, or a `ConfigError` naming `file:line:column`.
 * `lineOffset` shifts lines for YAML that starts further down a file (frontmatter).
 */
export function parseYaml(
  text: string,
  file: string,
  options: YamlLimitOptions & { lineOffset?: number } = {},
): unknown {
  const parsed = parseYamlLimited(text, options);
  const problem = parsed.problems[0];
  if (problem) {
    const line = problem.line + (options.lineOffset ?? 0);
    throw new ConfigError(`${file}:${line}:${problem.column}: ${problem.message}`);
  }
  return parsed.value;
}
