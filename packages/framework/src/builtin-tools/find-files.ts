import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { BuiltinTool } from './builtin-tool.js';
import { searchFailure } from './search-file.js';
import { ToolFailure } from './tool-failure.js';

export const FIND_FILES_MAX_RESULTS = 500;

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({
    pattern: z.string().min(1).describe('Glob such as "**/*.ts" or "src/*.json" (`*`, `**`, `?`, `{a,b}`)'),
    directory: z.string().optional().describe('Folder to search from (default: the workspace root)'),
  }),
);

/** `find_files {pattern, directory?}`: files matching a glob in path order, never following links out. */
export function createFindFilesTool() {
  return new BuiltinTool({
    name: 'find_files',
    description: `Find files by glob pattern under a folder (at most ${FIND_FILES_MAX_RESULTS} results; hidden entries skipped).`,
    parameters,
    paths: (args) => [{ path: args.directory ?? '.' }],
    async run({ args, paths, ops, context }) {
      const [dir] = paths;
      if (!dir?.exists || dir.kind !== 'directory')
        throw new ToolFailure(`No such folder: '${args.directory ?? '.'}'`);
      const { results, truncated } = await ops.search
        .find({
          pattern: args.pattern,
          directory: dir.real,
          maxResults: FIND_FILES_MAX_RESULTS,
          signal: context.signal,
        })
        .catch(searchFailure);
      return { pattern: args.pattern, directory: dir.real, results, count: results.length, truncated };
    },
  });
}
