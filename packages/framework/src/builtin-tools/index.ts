import type { ITool } from '@raf/core';
import { createApplyPatchTool } from './apply-patch.js';
import { createEditFileTool } from './edit-file.js';
import { createFindFilesTool } from './find-files.js';
import { createInspectFileTool } from './inspect-file.js';
import { createListFilesTool } from './list-files.js';
import { createMakeDirectoryTool } from './make-directory.js';
import { createMoveFileTool } from './move-file.js';
import { createReadFileTool } from './read-file.js';
import { createRemovePathTool } from './remove-path.js';
import { createRunCommandTool } from './run-command.js';
import { createSearchFileTool } from './search-file.js';
import { createWriteFileTool } from './write-file.js';

/** The 11 tools of `- kind: file`, in the seed's order. */
export const FILE_TOOL_NAMES = [
  'read_file',
  'write_file',
  'edit_file',
  'list_files',
  'inspect_file',
  'make_directory',
  'remove_path',
  'move_file',
  'find_files',
  'search_file',
  'run_command',
] as const;

export type FileToolName = (typeof FILE_TOOL_NAMES)[number] | 'apply_patch';

const FACTORIES: Record<FileToolName, () => ITool> = {
  read_file: createReadFileTool as () => ITool,
  write_file: createWriteFileTool as () => ITool,
  edit_file: createEditFileTool as () => ITool,
  list_files: createListFilesTool as () => ITool,
  inspect_file: createInspectFileTool as () => ITool,
  make_directory: createMakeDirectoryTool as () => ITool,
  remove_path: createRemovePathTool as () => ITool,
  move_file: createMoveFileTool as () => ITool,
  find_files: createFindFilesTool as () => ITool,
  search_file: createSearchFileTool as () => ITool,
  run_command: createRunCommandTool as () => ITool,
  apply_patch: createApplyPatchTool as () => ITool,
};

/** One built-in tool by name (unbound: give it to a workspace to scope it). */
export function createFileTool(name: FileToolName): ITool {
  const factory = FACTORIES[name];
  if (!factory) throw new TypeError(`unknown built-in file tool "${name}"`);
  return factory();
}

/** The 11 file and shell tools (add `apply_patch` yourself: it is opt-in). */
export function createFileTools(): ITool[] {
  return FILE_TOOL_NAMES.map((name) => createFileTool(name));
}
