import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { SEARCH_LIMITS } from '../workspace/operations/search-limits.js';
import { isReadable } from '../workspace/protected-paths.js';
import { BuiltinTool } from './builtin-tool.js';
import { ToolFailure } from './tool-failure.js';

export const SEARCH_FILE_MAX_MATCHES = 200;

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({
    pattern: z.string().min(1).describe('Regular expression, matched line by line'),
    directory: z.string().describe('Folder (or single file) to search; "." is the workspace root'),
    include: z.string().optional().describe('Only files matching this glob, e.g. "*.ts"'),
    case_insensitive: z.boolean().optional().describe('Ignore case (default false)'),
  }),
);

/** A search error the model can act on (bad pattern, time bound) becomes a tool failure. */
export function searchFailure(error: NodeJS.ErrnoException): never {
  if (error.code === 'EPATTERN' || error.code === 'ETIMEDOUT') throw new ToolFailure(error.message);
  throw error;
}

/**
 * `search_file {pattern, directory, include?, case_insensitive?}`: regex search, ripgrep when
 * installed, else a JS walker with the same limits (200 matches in path order, 300-char lines,
 * depth 20, hidden folders, binary files and files over 50 MB skipped, links not followed).
 */
export function createSearchFileTool() {
  return new BuiltinTool({
    name: 'search_file',
    description: `Search file contents with a regular expression (the first ${SEARCH_FILE_MAX_MATCHES} matches in path order; hidden folders and binary files skipped).`,
    parameters,
    paths: (args) => [{ path: args.directory }],
    async run({ args, paths, ops, context, protection, scope }) {
      const [dir] = paths;
      if (!dir?.exists) throw new ToolFailure(`No such folder or file: '${args.directory}'`);
      if (dir.kind !== 'directory' && dir.kind !== 'file')
        throw new ToolFailure(`'${args.directory}' is not a folder or a regular file`);
      const outcome = await ops.search
        .search({
          pattern: args.pattern,
          directory: dir.real,
          caseInsensitive: args.case_insensitive ?? false,
          maxMatches: SEARCH_FILE_MAX_MATCHES,
          signal: context.signal,
          ...(args.include !== undefined && { include: args.include }),
        })
        .catch(searchFailure);
      const skipped = outcome.skipped ?? [];
      // Protected files (`.env`, the agent definition) are never read out through a search.
      const policy = scope?.policy ?? 'AllowAll';
      const matches = outcome.matches.filter((m) => isReadable(m.file, protection, policy));
      return {
        pattern: args.pattern,
        directory: dir.real,
        matches: matches.map((m) => ({ file: m.file, line: m.line, content: m.content })),
        total: matches.length,
        truncated: outcome.truncated,
        ...(skipped.length > 0 && {
          skipped: skipped
            .slice(0, SEARCH_LIMITS.listedSkips)
            .map((s) => ({ path: s.file, reason: s.reason ?? 'too large' })),
          skipped_count: skipped.length,
        }),
      };
    },
  });
}
