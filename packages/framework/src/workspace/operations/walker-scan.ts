import { clipLine } from './search-limits.js';

/** Finds match positions in a whole text and confirms them on single lines. */
export interface TextMatcher {
  /** Index of the first match at or after `from`, or -1. */
  first(text: string, from: number): number;
  /** Whether the line (without its newline) matches. */
  line(line: string): boolean;
  /** Look-arounds see across newlines in the whole text, so such patterns go line by line. */
  lineByLine: boolean;
}

const LOOKAROUND = /\(\?<?[=!]/;

/** The JS engine (V8's backtracking irregexp): fast, but exponential on some patterns. */
export function jsMatcher(source: string, flags: string): TextMatcher {
  const global = new RegExp(source, `${flags}g`);
  const single = new RegExp(source, flags);
  return {
    first(text, from) {
      global.lastIndex = from;
      return global.exec(text)?.index ?? -1;
    },
    line: (line) => single.test(line),
    lineByLine: LOOKAROUND.test(source),
  };
}

/** What re2js exposes that the linear matcher uses (it is loaded only when needed). */
export interface Re2Module {
  RE2JS: {
    MULTILINE: number;
    CASE_INSENSITIVE: number;
    translateRegExp(expr: string): string;
    compile(
      regex: string,
      flags: number,
    ): {
      matcher(input: string): { find(start: number): boolean; start(): number };
      test(input: string): boolean;
    };
  };
}

/** A linear-time engine (re2js, a port of RE2): no look-arounds or backreferences. */
export function linearMatcher(re2: Re2Module, source: string, flags: string): TextMatcher {
  const { RE2JS } = re2;
  const compiled = RE2JS.compile(
    RE2JS.translateRegExp(source),
    RE2JS.MULTILINE | (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0),
  );
  let input: string | undefined;
  let matcher: ReturnType<typeof compiled.matcher> | undefined;
  return {
    first(text, from) {
      if (text !== input) {
        input = text;
        matcher = compiled.matcher(text);
      }
      return matcher?.find(from) ? matcher.start() : -1;
    },
    line: (line) => compiled.test(line),
    lineByLine: false,
  };
}

/** Whether re2js can run the pattern (it has no look-arounds or backreferences). */
export function linearCompatible(re2: Re2Module, source: string): boolean {
  try {
    re2.RE2JS.compile(re2.RE2JS.translateRegExp(source), re2.RE2JS.MULTILINE);
    return true;
  } catch {
    return false;
  }
}

/** A pattern without regex syntax (escaped punctuation allowed): its bytes must be in the file. */
export function literalOf(source: string, flags: string): string | undefined {
  if (flags.includes('i') || !/^(?:[^\\^$.*+?()[\]{}|]|\\[\\^$.*+?()[\]{}|/.\-#])+$/.test(source)) {
    return undefined;
  }
  return source.replace(/\\(.)/g, '$1');
}

export interface LineMatch {
  line: number;
  content: string;
}

/**
 * The matching lines of `text`, at most `limit`. Looks for the next match in the whole text and
 * confirms it on its line, so a big file with few matches is never split into lines, and a file
 * with a million matching lines stops after `limit` (nothing is spread onto the stack).
 * `progress` runs after every regex call, for the pool's stall detection.
 */
export function scanText(
  text: string,
  matcher: TextMatcher,
  limit: number,
  lineChars: number,
  progress: () => void,
): LineMatch[] {
  const found: LineMatch[] = [];
  let line = 1;
  let counted = 0; // newlines before `counted` are included in `line`
  let from = 0;
  // A text ending in a newline has no line after it (as grep and ripgrep count).
  while (found.length < limit && from < text.length) {
    const at = matcher.lineByLine ? from : matcher.first(text, from);
    progress();
    if (at < 0) break;
    const start = at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
    for (let nl = text.indexOf('\n', counted); nl >= 0 && nl < start; nl = text.indexOf('\n', nl + 1)) line++;
    counted = start;
    const newline = text.indexOf('\n', at);
    const end = newline < 0 ? text.length : newline;
    const content = text.slice(start, end);
    if (matcher.line(content)) found.push({ line, content: clipLine(content, lineChars) });
    if (matcher.lineByLine) progress();
    if (newline < 0) break;
    from = end + 1;
  }
  return found;
}
