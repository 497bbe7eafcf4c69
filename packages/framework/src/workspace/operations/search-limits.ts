/** Limits shared by both search engines, so ripgrep and the walker give the same answers. */
export const SEARCH_LIMITS = {
  maxDepth: 20,
  maxFileBytes: 64 * 1024 * 1024,
  binaryProbeBytes: 8192,
  lineChars: 300,
} as const;

/** Cuts a matched line to the shared limit. */
export function clipLine(line: string): string {
  const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
  return trimmed.length > SEARCH_LIMITS.lineChars ? `${trimmed.slice(0, SEARCH_LIMITS.lineChars)}…` : trimmed;
}

/** Orders matches by file, then line: the engines walk in different orders. */
export function byFileAndLine(a: { file: string; line: number }, b: { file: string; line: number }): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line;
}
