import { isAbsolute } from 'node:path';
import { lazyRequire } from '../../lazy-require.js';
import { hasRipgrep, RipgrepPatternError, ripgrepSearch } from './ripgrep-search.js';
import { SEARCH_LIMITS } from './search-limits.js';
import type { FindRequest, SearchOperations, SearchOutcome, SearchRequest } from './tool-operations.js';
import { compileSearchPattern, walkerSearch } from './walker-search.js';

const tinyglobby = lazyRequire<typeof import('tinyglobby')>('tinyglobby');

export interface LocalSearchOptions {
  /** `auto` (default): ripgrep when installed, else the JS walker. */
  engine?: 'auto' | 'ripgrep' | 'walker';
  ripgrepPath?: string;
}

/** Search with ripgrep when present, a streaming JS walker otherwise; find with a glob library. */
export class LocalSearchOperations implements SearchOperations {
  constructor(private readonly options: LocalSearchOptions = {}) {}

  async search(request: SearchRequest): Promise<SearchOutcome> {
    // The JS dialect decides what a valid pattern is, whichever engine runs.
    compileSearchPattern(request.pattern, request.caseInsensitive);
    const engine = this.options.engine ?? 'auto';
    const useRipgrep =
      engine === 'ripgrep' || (engine === 'auto' && (await hasRipgrep(this.options.ripgrepPath)));
    if (!useRipgrep) return walkerSearch(request);
    try {
      return await ripgrepSearch(request, this.options.ripgrepPath);
    } catch (error) {
      // Lookarounds and backreferences are JS-only: the walker understands them.
      if (error instanceof RipgrepPatternError) return walkerSearch(request);
      throw error;
    }
  }

  async find(request: FindRequest): Promise<{ results: string[]; truncated: boolean }> {
    const { pattern } = request;
    if (isAbsolute(pattern) || pattern.split(/[\\/]/).includes('..')) {
      throw Object.assign(
        new Error("the pattern must be relative to the directory and must not contain '..'"),
        {
          code: 'EPATTERN',
        },
      );
    }
    const found = await tinyglobby().glob(pattern, {
      cwd: request.directory,
      absolute: true,
      followSymbolicLinks: false,
      onlyFiles: true,
      dot: false,
      deep: SEARCH_LIMITS.maxDepth,
      expandDirectories: false,
      signal: request.signal,
    });
    found.sort();
    return { results: found.slice(0, request.maxResults), truncated: found.length > request.maxResults };
  }
}
