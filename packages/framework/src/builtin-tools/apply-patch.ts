import { getErrorMessage } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import type { StructuredPatch } from 'diff';
import * as z from 'zod';
import { lazyRequire } from '../lazy-require.js';
import type { ToolOperations } from '../workspace/operations/tool-operations.js';
import type { ResolvedPath } from '../workspace/path-guard.js';
import { BuiltinTool } from './builtin-tool.js';
import { describeFsError, ToolFailure } from './tool-failure.js';
import { namesFolder } from './write-file.js';

const diff = lazyRequire<typeof import('diff')>('diff');

const PATCH_MAX_FILE_BYTES = 10 * 1024 * 1024;

// Built on first use (a call to check): importing the framework builds no schema.
const parameters = onFirstUse(() =>
  z.object({
    patch: z
      .string()
      .min(1)
      .describe('Unified diff (`--- a/file` / `+++ b/file` / `@@` hunks); may touch several files'),
  }),
);

interface FileChange {
  path: string;
  kind: 'create' | 'modify' | 'delete';
  patch: StructuredPatch;
}

function stripPrefix(name: string | undefined): string | undefined {
  if (!name || name === '/dev/null') return undefined;
  const clean = name.split('\t')[0] as string;
  return /^[ab]\//.test(clean) ? clean.slice(2) : clean;
}

/** Reads the files a patch touches; a patch that cannot be parsed is an error the model reads. */
export function changesOf(text: string): FileChange[] {
  let patches: StructuredPatch[];
  try {
    patches = diff().parsePatch(text);
  } catch (error) {
    throw new ToolFailure(`the patch cannot be parsed: ${(error as Error).message}`);
  }
  const changes = patches.flatMap((patch): FileChange[] => {
    const from = stripPrefix(patch.oldFileName);
    const to = stripPrefix(patch.newFileName);
    if (!from && !to) return [];
    if (from && to && from !== to)
      throw new ToolFailure(`renames are not supported by apply_patch (${from} -> ${to}); use move_file`);
    const kind = !from ? 'create' : !to ? 'delete' : 'modify';
    return [{ path: (to ?? from) as string, kind, patch }];
  });
  if (changes.length === 0)
    throw new ToolFailure('the patch names no file (expected --- a/file and +++ b/file lines)');
  return changes;
}

/**
 * The file's text, refused when it is not UTF-8: decoding would turn each stray byte into U+FFFD
 * and writing the result back would change the file outside the patch's hunks (and an undo
 * would restore the altered text, not the file).
 */
function utf8Text(bytes: Buffer, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolFailure(`'${path}' is not UTF-8 text; apply_patch cannot change it without corrupting it`);
  }
}

/** Two sections for one file would each be applied to the original and the last would win. */
function refuseRepeats(changes: FileChange[], paths: ResolvedPath[]): void {
  const seen = new Set<string>();
  for (const [i, change] of changes.entries()) {
    const real = paths[i]?.real ?? change.path;
    if (seen.has(real))
      throw new ToolFailure(
        `the patch changes '${change.path}' in more than one section; put all its hunks under one ---/+++ header`,
      );
    seen.add(real);
  }
}

/**
 * A file-system error worded for the file of the patch it happened on (the tool's generic
 * wording would name the patch's first file, whichever failed).
 */
function naming(error: unknown, path: string): unknown {
  const text = describeFsError(error, path);
  return text === getErrorMessage(error) ? error : new ToolFailure(text);
}

async function newContents(change: FileChange, file: ResolvedPath, ops: ToolOperations, signal: AbortSignal) {
  if (change.kind === 'create' && file.exists) throw new ToolFailure(`'${change.path}' already exists`);
  if (change.kind === 'create' && namesFolder(change.path))
    throw new ToolFailure(`'${change.path}' names a folder, not a file`);
  if (change.kind !== 'create' && file.kind !== 'file')
    throw new ToolFailure(`No such file: '${change.path}'`);
  const before =
    change.kind === 'create'
      ? undefined
      : utf8Text(await ops.fs.readFile(file.real, { maxBytes: PATCH_MAX_FILE_BYTES, signal }), change.path);
  const after = diff().applyPatch(before ?? '', change.patch);
  if (after === false)
    throw new ToolFailure(
      `the patch does not apply to '${change.path}' (its context lines do not match); nothing was changed`,
    );
  return { before, after };
}

/** `apply_patch {patch}`: applies a unified diff to one or more files, all or nothing (opt-in tool). */
export function createApplyPatchTool() {
  return new BuiltinTool({
    name: 'apply_patch',
    description: 'Apply a unified diff to one or more files. Either every file changes or none does.',
    parameters,
    paths: (args) => {
      try {
        return changesOf(args.patch).map((c) => ({
          path: c.path,
          followFinalLink: c.kind !== 'delete',
          access: 'write' as const,
        }));
      } catch {
        return [];
      }
    },
    async run({ args, paths, ops, context }) {
      const changes = changesOf(args.patch);
      refuseRepeats(changes, paths);
      const planned = await Promise.all(
        changes.map(async (change, i) => {
          const file = paths[i] as ResolvedPath;
          const contents = await newContents(change, file, ops, context.signal).catch((error: unknown) => {
            throw naming(error, change.path);
          });
          return { change, file, ...contents };
        }),
      );
      const done: typeof planned = [];
      let current: (typeof planned)[number] | undefined;
      try {
        for (const step of planned) {
          current = step;
          if (step.change.kind === 'delete') await ops.fs.remove(step.file.real);
          else await ops.fs.writeFile(step.file.real, step.after, { signal: context.signal });
          done.push(step);
        }
      } catch (error) {
        // Undo what was written so the patch stays all-or-nothing.
        for (const step of done.reverse()) {
          if (step.before === undefined) await ops.fs.remove(step.file.real).catch(() => {});
          else
            await ops.fs
              .writeFile(step.file.real, step.before, { signal: new AbortController().signal })
              .catch(() => {});
        }
        throw current ? naming(error, current.change.path) : error;
      }
      return { files: planned.map((s) => ({ path: s.file.real, change: s.change.kind })), applied: true };
    },
  });
}
