// Generated from the built-in tools' zod schemas by `pnpm --filter @raf/framework tool-schemas:write`
// (render-tool-schemas.ts); builtin-tool-schemas.test.ts fails when it is not current. Do not edit.
import type { JSONSchema } from '@raf/core';

// JSON text: parsing it is the fastest way to build the objects, and each tool gets its own copy.
const SCHEMAS: Readonly<Record<string, string>> = {
  read_file:
    '{"type":"object","properties":{"path":{"type":"string","description":"File to read, relative to the workspace root or absolute"},"offset":{"description":"1-based line to start at (default 1)","type":"integer","minimum":1,"maximum":9007199254740991},"limit":{"description":"Number of lines to read (default 2000)","type":"integer","minimum":1,"maximum":9007199254740991}},"required":["path"]}',
  write_file:
    '{"type":"object","properties":{"path":{"type":"string","description":"File to write, relative to the workspace root or absolute"},"content":{"type":"string","description":"The whole new content of the file"}},"required":["path","content"]}',
  edit_file:
    '{"type":"object","properties":{"path":{"type":"string","description":"File to edit"},"old_str":{"type":"string","description":"Exact text to replace; must occur exactly once"},"new_str":{"type":"string","description":"Replacement text"}},"required":["path","old_str","new_str"]}',
  list_files:
    '{"type":"object","properties":{"path":{"type":"string","description":"Folder to list (not recursive); \\".\\" is the workspace root"}},"required":["path"]}',
  inspect_file:
    '{"type":"object","properties":{"path":{"type":"string","description":"File or folder to describe"}},"required":["path"]}',
  make_directory:
    '{"type":"object","properties":{"path":{"type":"string","description":"Folder to create, with any missing parents"}},"required":["path"]}',
  remove_path:
    '{"type":"object","properties":{"path":{"type":"string","description":"File or folder to delete (folders recursively)"}},"required":["path"]}',
  move_file:
    '{"type":"object","properties":{"from":{"type":"string","description":"Existing file or folder"},"to":{"type":"string","description":"New path; must not exist (parent folders are created)"}},"required":["from","to"]}',
  find_files:
    '{"type":"object","properties":{"pattern":{"type":"string","minLength":1,"description":"Glob such as \\"**/*.ts\\" or \\"src/*.json\\" (`*`, `**`, `?`, `{a,b}`)"},"directory":{"description":"Folder to search from (default: the workspace root)","type":"string"}},"required":["pattern"]}',
  search_file:
    '{"type":"object","properties":{"pattern":{"type":"string","minLength":1,"description":"Regular expression, matched line by line"},"directory":{"type":"string","description":"Folder (or single file) to search; \\".\\" is the workspace root"},"include":{"description":"Only files matching this glob, e.g. \\"*.ts\\"","type":"string"},"case_insensitive":{"description":"Ignore case (default false)","type":"boolean"}},"required":["pattern","directory"]}',
  run_command:
    '{"type":"object","properties":{"command":{"type":"string","minLength":1,"description":"Shell command, run with `sh -c` in a fresh shell (stdin closed)"},"working_dir":{"description":"Folder to run in (default: the workspace root)","type":"string"},"timeout_secs":{"description":"Seconds before the command is killed (default 30)","type":"integer","minimum":1,"maximum":3600},"output_level":{"description":"\\"error\\": stderr only; \\"warning\\": warning lines; \\"info\\" (default): output tails; \\"all\\": everything up to 1 MB","type":"string","enum":["error","warning","info","all"]}},"required":["command"]}',
  apply_patch:
    '{"type":"object","properties":{"patch":{"type":"string","minLength":1,"description":"Unified diff (`--- a/file` / `+++ b/file` / `@@` hunks); may touch several files"}},"required":["patch"]}',
};

/** A built-in tool's parameters as JSON Schema; undefined for any other name. */
export function builtinToolSchema(name: string): JSONSchema | undefined {
  return Object.hasOwn(SCHEMAS, name) ? (JSON.parse(SCHEMAS[name] as string) as JSONSchema) : undefined;
}
