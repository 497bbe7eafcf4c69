import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { BuiltinTool } from './builtin-tool.js';
import { requireFile, ToolFailure } from './tool-failure.js';

export const READ_FILE_MAX_BYTES = 512 * 1024;
export const READ_FILE_MAX_LINE_CHARS = 2000;
export const READ_FILE_DEFAULT_LIMIT = 2000;

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({
    path: z.string().describe('File to read, relative to the workspace root or absolute'),
    offset: z.number().int().min(1).optional().describe('1-based line to start at (default 1)'),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Number of lines to read (default ${READ_FILE_DEFAULT_LIMIT})`),
  }),
);

/** `read_file {path, offset?, limit?}`: text of a regular file up to 512 KiB, by lines. */
export function createReadFileTool() {
  return new BuiltinTool({
    name: 'read_file',
    description:
      'Read a text file. Returns numbered lines from `offset` (1-based) for `limit` lines; files over 512 KiB are refused.',
    parameters,
    paths: (args) => [{ path: args.path }],
    async run({ args, paths, ops, context }) {
      const file = requireFile(paths[0], args.path);
      const buffer = await ops.fs.readFile(file.real, {
        maxBytes: READ_FILE_MAX_BYTES,
        signal: context.signal,
      });
      if (buffer.subarray(0, 8192).includes(0))
        throw new ToolFailure(`'${args.path}' looks like a binary file`);
      const text = buffer.toString('utf8');
      const lines = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
      const start = args.offset ?? 1;
      const end = Math.min(lines.length, start - 1 + (args.limit ?? READ_FILE_DEFAULT_LIMIT));
      const shown = lines
        .slice(start - 1, end)
        .map((line) =>
          line.length > READ_FILE_MAX_LINE_CHARS
            ? `${line.slice(0, READ_FILE_MAX_LINE_CHARS)} [truncated]`
            : line,
        );
      const truncated = start > 1 || end < lines.length;
      let content = shown.join('\n');
      if (truncated) content += `\n[truncated — use offset/limit to read more]`;
      return {
        path: file.real,
        content,
        total_lines: lines.length,
        start_line: Math.min(start, lines.length + 1),
        end_line: end,
        truncated,
      };
    },
  });
}
