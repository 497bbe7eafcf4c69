import { comparePaths } from './path-order.js';
import { hasRipgrep, RipgrepMissingError, RipgrepPatternError, ripgrepSearch } from './ripgrep-search.js';
import { formatSize, SEARCH_LIMITS, SearchTimeoutError } from './search-limits.js';
import type { FindRequest, SearchOperations, SearchOutcome, SearchRequest } from './tool-operations.js';
import { checkFindPattern, compileSearchPattern, walkerFind, walkerSearch } from './walker-search.js';

/** The longest search pattern or include glob (the find glob matcher's own limit too). */
const MAX_ARGUMENT_CHARS = 65_536;

/**
 * ripgrep takes the pattern and glob as arguments, which cannot hold a NUL nor exceed the kernel's
 * 128 KiB per argument (`spawn E2BIG`); the glob matcher stops at 64 Ki characters. Refused here,
 * named, whichever engine would run.
 */
function checkArgument(what: string, text: string): void {
  const problem = text.includes('\0')
    ? `the ${what} contains a NUL byte`
    : text.length > MAX_ARGUMENT_CHARS
      ? `the ${what} is ${text.length} characters long, over the ${MAX_ARGUMENT_CHARS}-character limit`
      : undefined;
  if (problem) throw Object.assign(new Error(problem), { code: 'EPATTERN' });
}

export interface LocalSearchOptions {
  /** `auto` (default): ripgrep when installed, else the JS walker (also when `ripgrep` is missing). */
  engine?: 'auto' | 'ripgrep' | 'walker';
  ripgrepPath?: string;
  /** Files over this many bytes are skipped and listed as skipped (default 50 MB). */
  maxFileBytes?: number;
  /** Every search and find answers within this many milliseconds (default 20 s), else fails. */
  timeoutMs?: number;
}

/** Search with ripgrep when present, the JS walker otherwise; find with the walker. */
export class LocalSearchOperations implements SearchOperations {
  constructor(private readonly options: LocalSearchOptions = {}) {}

  private get maxFileBytes(): number {
    return this.options.maxFileBytes ?? SEARCH_LIMITS.maxFileBytes;
  }

  async search(request: SearchRequest): Promise<SearchOutcome> {
    checkArgument('pattern', request.pattern);
    if (request.include !== undefined) checkArgument('include', request.include);
    // The JS dialect decides what a valid pattern is, whichever engine runs.
    compileSearchPattern(request.pattern, request.caseInsensitive);
    const outcome = await this.bounded(request.signal, (signal) => this.searchWith({ ...request, signal }));
    const last = outcome.matches.at(-1)?.file;
    // Skipped files after the last match do not change the answer of a truncated search.
    const reason = `over ${formatSize(this.maxFileBytes)}`;
    const skipped = (outcome.skipped ?? [])
      .filter((s) => !outcome.truncated || (last !== undefined && comparePaths(s.file, last) < 0))
      .map((s) => ({ ...s, reason }));
    return { ...outcome, skipped };
  }

  private async searchWith(request: SearchRequest): Promise<SearchOutcome> {
    const engine = this.options.engine ?? 'auto';
    const walker = () => walkerSearch(request, { maxFileBytes: this.maxFileBytes });
    if (engine === 'walker' || !(await hasRipgrep(this.options.ripgrepPath))) return walker();
    try {
      return await ripgrepSearch(request, {
        maxFileBytes: this.maxFileBytes,
        ...(this.options.ripgrepPath !== undefined && { path: this.options.ripgrepPath }),
      });
    } catch (error) {
      // Lookarounds and backreferences are JS-only: the walker understands them.
      if (error instanceof RipgrepPatternError || error instanceof RipgrepMissingError) return walker();
      throw error;
    }
  }

  async find(request: FindRequest): Promise<{ results: string[]; truncated: boolean }> {
    checkArgument('pattern', request.pattern);
    checkFindPattern(request.pattern);
    return this.bounded(request.signal, (signal) =>
      walkerFind({ ...request, signal }, { maxFileBytes: this.maxFileBytes }),
    );
  }

  /** Runs `work` under the caller's signal and the search time bound, whichever ends first. */
  private async bounded<T>(signal: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = this.options.timeoutMs ?? SEARCH_LIMITS.timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new SearchTimeoutError(timeoutMs)), timeoutMs);
    try {
      return await work(AbortSignal.any([signal, timeout.signal]));
    } finally {
      clearTimeout(timer);
    }
  }
}
