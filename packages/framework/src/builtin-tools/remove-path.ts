import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { BuiltinTool, isProtectedPath } from './builtin-tool.js';
import { ToolFailure } from './tool-failure.js';

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({ path: z.string().describe('File or folder to delete (folders recursively)') }),
);

/** `remove_path {path}`: deletes recursively; a link is removed itself; roots and home are refused. */
export function createRemovePathTool() {
  return new BuiltinTool({
    name: 'remove_path',
    description:
      'Delete a file or a folder with everything in it. A symbolic link is removed, not its target.',
    parameters,
    paths: (args) => [{ path: args.path, followFinalLink: false, access: 'write', tree: true }],
    async run({ args, paths, ops, scope }) {
      const [entry] = paths;
      if (!entry?.exists) throw new ToolFailure(`No such file or folder: '${args.path}'`);
      if (await isProtectedPath(entry.real, scope, ops.fs))
        throw new ToolFailure('Refusing to delete critical path');
      await ops.fs.remove(entry.real);
      return { path: entry.real, deleted: true };
    },
  });
}
