import { z } from 'zod';
import { isReadable } from '../workspace/protected-paths.js';
import { BuiltinTool } from './builtin-tool.js';
import { ToolFailure } from './tool-failure.js';

export const SEARCH_FILE_MAX_MATCHES = 200;

const parameters = z.object({
  pattern: z.string().min(1).describe('Regular expression, matched line by line'),
  directory: z.string().describe('Folder (or single file) to search; "." is the workspace root'),
  include: z.string().optional().describe('Only files matching this glob, e.g. "*.ts"'),
  case_insensitive: z.boolean().optional().describe('Ignore case (default false)'),
});

/**
 * `search_file {pattern, directory, include?, case_insensitive?}`: regex search, ripgrep when
 * installed, else a JS walker with the same limits (200 matches, 300-char lines, depth 20, hidden
 * folders and binary files skipped, links not followed).
 */
export function createSearchFileTool() {
  return new BuiltinTool({
    name: 'search_file',
    description: `Search file contents with a regular expression (at most ${SEARCH_FILE_MAX_MATCHES} matches; hidden folders and binary files skipped).`,
    parameters,
    paths: (args) => [{ path: args.directory }],
    async run({ args, paths, ops, context, protection, scope }) {
      const [dir] = paths;
      if (!dir?.exists || (dir.kind !== 'directory' && dir.kind !== 'file')) {
        throw new ToolFailure(`No such folder or file: '${args.directory}'`);
      }
      const outcome = await ops.search
        .search({
          pattern: args.pattern,
          directory: dir.real,
          caseInsensitive: args.case_insensitive ?? false,
          maxMatches: SEARCH_FILE_MAX_MATCHES,
          signal: context.signal,
          ...(args.include !== undefined && { include: args.include }),
        })
        .catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EPATTERN') throw new ToolFailure(error.message);
          throw error;
        });
      // Protected files (`.env`, the agent definition) are never read out through a search.
      const policy = scope?.policy ?? 'AllowAll';
      const matches = outcome.matches.filter((m) => isReadable(m.file, protection, policy));
      return {
        pattern: args.pattern,
        directory: dir.real,
        matches: matches.map((m) => ({ file: m.file, line: m.line, content: m.content })),
        total: matches.length,
        truncated: outcome.truncated,
      };
    },
  });
}
