import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { BuiltinTool } from './builtin-tool.js';
import { ToolFailure } from './tool-failure.js';

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() => z.object({ path: z.string().describe('File or folder to describe') }));

/** RFC 3339 with whole seconds, as the upstream prints it: `2026-06-18T10:30:00Z`. */
export function rfc3339Seconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** `inspect_file {path}`: type, size, read-only flag and times of one entry. */
export function createInspectFileTool() {
  return new BuiltinTool({
    name: 'inspect_file',
    description:
      'Describe a file or folder: type, size in bytes, read-only flag, modified and created times.',
    parameters,
    paths: (args) => [{ path: args.path }],
    async run({ args, paths, ops }) {
      const [entry] = paths;
      if (!entry?.exists) throw new ToolFailure(`No such file or folder: '${args.path}'`);
      const info = await ops.fs.lstat(entry.real);
      return {
        path: entry.real,
        type: info.kind === 'directory' ? 'dir' : info.kind,
        size: info.size,
        readonly: info.readonly,
        modified: rfc3339Seconds(info.mtimeMs),
        created: rfc3339Seconds(info.birthtimeMs || info.mtimeMs),
      };
    },
  });
}
