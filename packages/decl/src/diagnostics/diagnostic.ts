import { ConfigError, RafError } from '@raf/core';
import type { z } from 'zod';

/** One problem in an agent file, located as precisely as the source allows. */
export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  /** The field, dotted as written in the file (`model.connection.api_key`, `tools[2].kind`). */
  path: string;
  message: string;
  severity: 'error' | 'warning';
  /** The source line the problem is on (a syntax error's): shown under the message with a caret. */
  sourceLine?: string;
}

/**
 * `agent.yaml:14:5 tools[2].kind: …` — the form editors and terminals link; a syntax error adds
 * its source line and a caret under the column.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file}:${d.line}:${d.column}`;
  const head = d.path ? `${where} ${d.path}: ${d.message}` : `${where} ${d.message}`;
  if (d.sourceLine === undefined) return head;
  const gutter = String(d.line);
  // Tabs kept as tabs before the caret, so it lines up under the column however they are shown.
  const lead = d.sourceLine.slice(0, Math.max(0, d.column - 1)).replace(/[^\t]/g, ' ');
  return `${head}\n  ${gutter} | ${d.sourceLine}\n  ${' '.repeat(gutter.length)} | ${lead}^`;
}

export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** A file that cannot become an agent: every error found, with positions. */
const declErrorKey = 'raf.error.DeclError';
const declErrorSymbol = Symbol.for(declErrorKey);
export class DeclError extends ConfigError {
  private readonly [declErrorSymbol] = true;
  readonly diagnostics: readonly Diagnostic[];

  /** True for a `DeclError` from any copy of `@raf/decl` (the CLI checks this, not `instanceof`). */
  static override isInstance(error: unknown): error is DeclError {
    return RafError.hasMarker(error, declErrorKey);
  }

  constructor(diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    const shown = (errors.length > 0 ? errors : diagnostics).map(formatDiagnostic);
    super(shown.length === 1 ? (shown[0] as string) : `${shown.length} problems:\n${shown.join('\n')}`);
    this.name = 'DeclError';
    this.diagnostics = diagnostics;
  }
}

/**
 * Edit distance with adjacent transpositions (optimal string alignment), for "did you mean"
 * hints on near-miss keys and kinds: `fiel` is one typo away from `file`, not two.
 */
function distance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (before[j - 2] as number) + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length] as number;
}

/** The closest candidate when it is close enough to be a typo. */
export function suggest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

/** A zod issue in the words of an agent file: "is required", "must be one of …". */
export function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && (issue as { input?: unknown }).input === undefined)
    return 'is required';
  if (issue.code === 'invalid_value' && 'values' in issue) {
    return `must be one of ${(issue.values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return issue.message;
}
