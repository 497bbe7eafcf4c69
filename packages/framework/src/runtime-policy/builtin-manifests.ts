import { createToolManifest, DEFAULT_TOOL_MANIFEST, type ITool, type ToolManifest } from '@raf/core';

const local = { supportedInWorker: true, workerRoutingHint: 'local' } as const;
const proxied = { supportedInWorker: true, workerRoutingHint: 'main-process-proxy' } as const;
const write = { ...proxied, executionMode: 'sequential', requiresWrite: true } as const;

/**
 * The manifest of every tool the framework builds in (SPEC §7): the single source of
 * `parallel`/`sequential` and of worker routing. The tool loop and the runtime policy read it;
 * nothing re-derives it. Extensions keep their tools' manifests themselves (`RafPlugin.toolManifests`).
 */
export const BUILTIN_TOOL_MANIFESTS: Readonly<Record<string, ToolManifest>> = Object.freeze({
  read_file: createToolManifest({ kind: 'builtin', ...local }),
  list_files: createToolManifest({ kind: 'builtin', ...local }),
  find_files: createToolManifest({ kind: 'builtin', ...local }),
  search_file: createToolManifest({ kind: 'builtin', ...local }),
  inspect_file: createToolManifest({ kind: 'builtin', ...local }),
  // run_command bounds each command itself (`timeout_secs`, at most an hour, then the process
  // group is killed); the loop's limit only catches a tool that hangs past that.
  run_command: createToolManifest({
    kind: 'builtin',
    ...local,
    requiresShell: true,
    timeoutMs: (3600 + 60) * 1000,
  }),
  write_file: createToolManifest({ kind: 'builtin', ...write }),
  edit_file: createToolManifest({ kind: 'builtin', ...write }),
  move_file: createToolManifest({ kind: 'builtin', ...write }),
  remove_path: createToolManifest({ kind: 'builtin', ...write }),
  apply_patch: createToolManifest({ kind: 'builtin', ...write }),
  make_directory: createToolManifest({ kind: 'builtin', ...proxied, requiresWrite: true }),
  load_skill: createToolManifest({ kind: 'skill', ...proxied, requiresSkillScope: true }),
  read_skill_resource: createToolManifest({ kind: 'skill', ...proxied, requiresSkillScope: true }),
  memory_save: createToolManifest({ kind: 'memory', ...proxied, requiresWrite: true }),
  memory_recall: createToolManifest({ kind: 'memory', ...proxied }),
  delegate_task: createToolManifest({ kind: 'delegation', ...proxied, executionMode: 'sequential' }),
  delegate_parallel: createToolManifest({ kind: 'delegation', ...proxied, executionMode: 'sequential' }),
  clarify: createToolManifest({ kind: 'admin', ...proxied, executionMode: 'sequential' }),
  escalate: createToolManifest({ kind: 'admin', ...proxied, executionMode: 'sequential' }),
});

/** Tool names from seed 002's other platform, accepted as aliases of ours. */
export const TOOL_NAME_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  bash: 'run_command',
  list_dir: 'list_files',
  grep: 'search_file',
  edit: 'edit_file',
  patch: 'apply_patch',
  read_skill: 'load_skill',
  read_skill_file: 'read_skill_resource',
});

/**
 * A tool's own manifest, else the default (parallel, custom). Built-in tools carry theirs; a
 * user's tool that happens to be called `bash` or `write_file` is still a user tool.
 */
export function manifestOf(tool: Pick<ITool, 'manifest'>): ToolManifest {
  return tool.manifest ?? DEFAULT_TOOL_MANIFEST;
}

/** The manifest a built-in tool (file tools, skills, …) is made with, by its name or an alias. */
export function builtinManifest(name: string): ToolManifest {
  return BUILTIN_TOOL_MANIFESTS[TOOL_NAME_ALIASES[name] ?? name] ?? DEFAULT_TOOL_MANIFEST;
}
