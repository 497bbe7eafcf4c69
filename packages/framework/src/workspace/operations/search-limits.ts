/** Limits shared by both search engines, so ripgrep and the walker give the same answers. */
export const SEARCH_LIMITS = {
  maxDepth: 20,
  /** Files over this size are skipped (and listed as skipped), also when named directly. */
  maxFileBytes: 50 * 1024 * 1024,
  binaryProbeBytes: 8192,
  lineChars: 300,
  /** Every search answers within this bound, whatever the caller's signal says. */
  timeoutMs: 20_000,
  /**
   * A walker worker that makes no progress for this long is stuck in one regex run (catastrophic
   * backtracking): it is terminated and its share rerun on a linear-time engine when the pattern
   * allows one.
   */
  stallMs: 2_000,
  /** How many skipped files a result lists by name (the rest are counted). */
  listedSkips: 20,
} as const;

/** Cuts a matched line to the shared limit. */
export function clipLine(line: string, max: number = SEARCH_LIMITS.lineChars): string {
  const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
  return trimmed.length > max ? `${trimmed.slice(0, max)}…` : trimmed;
}

/** `52428800` → `50 MB` (binary megabytes, as `ls -h` counts). */
export function formatSize(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** The error of a search that ran past its time bound. */
export class SearchTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(
    readonly timeoutMs: number,
    hint?: string,
  ) {
    super(
      `search timed out after ${timeoutMs / 1000} s (a pattern that backtracks heavily, or a very large tree: narrow the pattern or the folder${hint ? `, ${hint}` : ''})`,
    );
    this.name = 'SearchTimeoutError';
  }
}
