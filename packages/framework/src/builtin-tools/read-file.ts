import { imagePart, mediaTypeOfName } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { BuiltinTool, RESULT_PARTS } from './builtin-tool.js';
import { requireFile, ToolFailure } from './tool-failure.js';

export const READ_FILE_MAX_BYTES = 512 * 1024;
export const READ_FILE_MAX_LINE_CHARS = 2000;
export const READ_FILE_DEFAULT_LIMIT = 2000;
/** An image is handed to the model whole, up to the size providers take (Anthropic: 5 MB). */
export const READ_FILE_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

// The leading bytes of each image type read_file hands over: a renamed file is not an image.
const IMAGE_SIGNATURES: Readonly<Record<string, (b: Buffer) => boolean>> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

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
      'Read a text file. Returns numbered lines from `offset` (1-based) for `limit` lines; files over 512 KiB are refused. An image (png, jpg, gif, webp, up to 5 MB) is shown to you as an image when you can see images, else described.',
    parameters,
    paths: (args) => [{ path: args.path }],
    async run({ args, paths, ops, context }) {
      const file = requireFile(paths[0], args.path);
      const mediaType = mediaTypeOfName(file.real);
      const isImage = mediaType !== undefined && IMAGE_SIGNATURES[mediaType] !== undefined;
      if (isImage) {
        const bytes = await ops.fs.readFile(file.real, {
          maxBytes: READ_FILE_MAX_IMAGE_BYTES,
          signal: context.signal,
        });
        if (IMAGE_SIGNATURES[mediaType]!(bytes))
          // The bytes go as a part the client sends only to a model that takes images (else a line
          // describing them); the JSON names the file.
          return {
            path: file.real,
            mediaType,
            bytes: bytes.length,
            content: `[image ${mediaType}, ${bytes.length} bytes]`,
            [RESULT_PARTS]: [imagePart(bytes, mediaType)],
          };
      }
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
