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

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
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
      const text = (
        await ops.fs.readFile(file.real, { maxBytes: EDIT_MAX_BYTES, signal: context.signal })
      ).toString('utf8');
      const found = occurrences(text, args.old_str);
      if (found.length === 0) {
        throw new ToolFailure(
          'old_str not found in the file. Make sure you copied the exact text, including whitespace and indentation.',
        );
      }
      if (found.length > 1) {
        const offsets = found.slice(0, 3).map((at) => Buffer.byteLength(text.slice(0, at), 'utf8'));
        throw new ToolFailure(
          `old_str is not unique — found ${found.length} occurrences (e.g. at byte offset ${offsets.join(', ')}). Include more surrounding text.`,
        );
      }
      const at = found[0] as number;
      const updated = text.slice(0, at) + args.new_str + text.slice(at + args.old_str.length);
      await ops.fs.writeFile(file.real, updated, { signal: context.signal });
      return { path: file.real, replaced: true };
    },
  });
}
