/**
 * The order of search results: paths compared component by component, names by code point (the
 * order of their UTF-8 bytes). It is the order of a depth-first walk over sorted folders, which is
 * what `rg --sort path` produces, so both engines truncate at the same first N.
 */
export function comparePaths(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

/** '/' ranks below every other character, so `a/x` precedes `a.txt` as `a` precedes `a.txt`. */
function rank(unit: number): number {
  if (unit === 0x2f) return -1;
  // UTF-16 puts surrogates (code points above U+FFFF) below U+E000–U+FFFF; code points do not.
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** Orders matches by file (in path order), then line. */
export function byFileAndLine(a: { file: string; line: number }, b: { file: string; line: number }): number {
  return a.file === b.file ? a.line - b.line : comparePaths(a.file, b.file);
}
