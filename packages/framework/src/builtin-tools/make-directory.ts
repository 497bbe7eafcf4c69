import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { BuiltinTool } from './builtin-tool.js';
import { ToolFailure } from './tool-failure.js';

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({ path: z.string().describe('Folder to create, with any missing parents') }),
);

/** `make_directory {path}`: `mkdir -p`, never through a link that leaves the checked path. */
export function createMakeDirectoryTool() {
  return new BuiltinTool({
    name: 'make_directory',
    description: 'Create a folder and any missing parent folders (like mkdir -p).',
    parameters,
    paths: (args) => [{ path: args.path, access: 'write' }],
    async run({ args, paths, ops }) {
      const [dir] = paths;
      if (!dir) throw new ToolFailure('no path');
      if (dir.exists && dir.kind !== 'directory')
        throw new ToolFailure(`'${args.path}' exists and is not a folder`);
      const created = await ops.fs.mkdir(dir.real);
      return { path: dir.real, created };
    },
  });
}
