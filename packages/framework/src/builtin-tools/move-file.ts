import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { isInside } from '../workspace/path-guard.js';
import { BuiltinTool, isProtectedPath } from './builtin-tool.js';
import { ToolFailure } from './tool-failure.js';

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({
    from: z.string().describe('Existing file or folder'),
    to: z.string().describe('New path; must not exist (parent folders are created)'),
  }),
);

/** `move_file {from, to}`: both ends are checked; the destination must not exist. */
export function createMoveFileTool() {
  return new BuiltinTool({
    name: 'move_file',
    description:
      'Move or rename a file or folder. The destination must not exist; its parent folders are created.',
    parameters,
    paths: (args) => [
      { path: args.from, followFinalLink: false, access: 'write', tree: true },
      { path: args.to, followFinalLink: false, access: 'write' },
    ],
    async run({ args, paths, ops, scope }) {
      const [from, to] = paths;
      if (!from?.exists) throw new ToolFailure(`No such file or folder: '${args.from}'`);
      if (!to || to.exists) throw new ToolFailure('Destination already exists');
      if (await isProtectedPath(from.real, scope, ops.fs))
        throw new ToolFailure('Refusing to move critical path');
      // rename(2) refuses this with a bare EINVAL naming internal descriptor paths: say why.
      if (isInside(to.real, from.real))
        throw new ToolFailure(`Cannot move '${args.from}' into itself ('${args.to}')`);
      await ops.fs.move(from.real, to.real);
      return { from: from.real, to: to.real, moved: true };
    },
  });
}
