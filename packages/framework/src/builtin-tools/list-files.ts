import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { BuiltinTool } from './builtin-tool.js';
import { ToolFailure } from './tool-failure.js';

export const LIST_FILES_MAX_ENTRIES = 1000;

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({
    path: z.string().describe('Folder to list (not recursive); "." is the workspace root'),
  }),
);

/** `list_files {path}`: one folder's entries, folders first, then by name; links are not followed. */
export function createListFilesTool() {
  return new BuiltinTool({
    name: 'list_files',
    description: 'List the entries of one folder (not recursive): folders first, then files, by name.',
    parameters,
    paths: (args) => [{ path: args.path }],
    async run({ args, paths, ops }) {
      const [dir] = paths;
      if (!dir?.exists) throw new ToolFailure(`No such folder: '${args.path}'`);
      if (dir.kind !== 'directory') throw new ToolFailure(`'${args.path}' is not a folder`);
      const entries = await ops.fs.list(dir.real);
      entries.sort((a, b) =>
        a.kind === 'dir' && b.kind !== 'dir'
          ? -1
          : b.kind === 'dir' && a.kind !== 'dir'
            ? 1
            : a.name < b.name
              ? -1
              : a.name > b.name
                ? 1
                : 0,
      );
      const shown = entries.slice(0, LIST_FILES_MAX_ENTRIES);
      return {
        path: dir.real,
        entries: shown.map((e) => ({ name: e.name, type: e.kind, size: e.size })),
        count: entries.length,
        truncated: entries.length > shown.length,
      };
    },
  });
}
