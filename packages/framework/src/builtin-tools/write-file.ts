import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { BuiltinTool } from './builtin-tool.js';
import { ToolFailure } from './tool-failure.js';

export const WRITE_FILE_MAX_BYTES = 1_000_000;

/**
 * Whether a path names a folder by its spelling (`logs/`, `logs/.`, `..`): resolving it drops the
 * slash or dot, so writing it would create a file where a folder was meant.
 */
export function namesFolder(path: string): boolean {
  return /(^|\/)\.{0,2}$/.test(path);
}

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({
    path: z.string().describe('File to write, relative to the workspace root or absolute'),
    content: z.string().describe('The whole new content of the file'),
  }),
);

/** `write_file {path, content}`: replaces a file atomically, creating parent folders. */
export function createWriteFileTool() {
  return new BuiltinTool({
    name: 'write_file',
    description: 'Create or overwrite a file with the given content (parent folders are created).',
    parameters,
    paths: (args) => [{ path: args.path, access: 'write' }],
    async run({ args, paths, ops, context }) {
      const [file] = paths;
      if (!file) throw new ToolFailure('no path');
      if (namesFolder(args.path))
        throw new ToolFailure(`'${args.path}' names a folder, not a file; give the file's name`);
      const bytes = Buffer.byteLength(args.content, 'utf8');
      if (bytes > WRITE_FILE_MAX_BYTES) {
        throw new ToolFailure(`content is ${bytes} bytes, over the ${WRITE_FILE_MAX_BYTES}-byte limit`);
      }
      if (file.exists && file.kind !== 'file')
        throw new ToolFailure(`'${args.path}' exists and is not a regular file`);
      await ops.fs.writeFile(file.real, args.content, { signal: context.signal });
      return { path: file.real, bytes_written: bytes };
    },
  });
}
