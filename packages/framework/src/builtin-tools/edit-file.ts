import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { BuiltinTool } from './builtin-tool.js';
import { requireFile, ToolFailure } from './tool-failure.js';

const EDIT_MAX_BYTES = 10 * 1024 * 1024;

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({
    path: z.string().describe('File to edit'),
    old_str: z.string().describe('Exact text to replace; must occur exactly once'),
    new_str: z.string().describe('Replacement text'),
  }),
);

/** Byte offsets of `needle` in `bytes` (overlapping matches count): all of them, or the first few. */
function occurrences(bytes: Buffer, needle: Buffer): { count: number; first: number[] } {
  const first: number[] = [];
  let count = 0;
  for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
    if (first.length < 3) first.push(at);
    count += 1;
  }
  return { count, first };
}

/** `edit_file {path, old_str, new_str}`: replaces text that occurs exactly once. */
export function createEditFileTool() {
  return new BuiltinTool({
    name: 'edit_file',
    description:
      'Replace `old_str` with `new_str` in a file. `old_str` must match exactly once (copy it exactly).',
    parameters,
    paths: (args) => [{ path: args.path, access: 'write' }],
    async run({ args, paths, ops, context }) {
      const file = requireFile(paths[0], args.path);
      if (args.old_str === '') throw new ToolFailure('old_str must not be empty');
      // The edit works on the bytes, not on decoded text: decoding a file with bytes that are
      // not UTF-8 (Latin-1 text, a binary blob) and encoding it again would rewrite every such
      // byte as U+FFFD, far from the replaced text.
      const bytes = await ops.fs.readFile(file.real, { maxBytes: EDIT_MAX_BYTES, signal: context.signal });
      const needle = Buffer.from(args.old_str, 'utf8');
      const found = occurrences(bytes, needle);
      if (found.count === 0) {
        throw new ToolFailure(
          'old_str not found in the file. Make sure you copied the exact text, including whitespace and indentation.',
        );
      }
      if (found.count > 1) {
        throw new ToolFailure(
          `old_str is not unique — found ${found.count} occurrences (e.g. at byte offset ${found.first.join(', ')}). Include more surrounding text.`,
        );
      }
      const at = found.first[0] as number;
      const updated = Buffer.concat([
        bytes.subarray(0, at),
        Buffer.from(args.new_str, 'utf8'),
        bytes.subarray(at + needle.length),
      ]);
      await ops.fs.writeFile(file.real, updated, { signal: context.signal });
      return { path: file.real, replaced: true };
    },
  });
}
