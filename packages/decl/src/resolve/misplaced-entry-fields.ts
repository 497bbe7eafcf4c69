import type { ToolDecl } from '../schema/agent-schema.js';

/**
 * The `tools:` entry fields beside `config` that only some kinds read, with those kinds. Any other
 * kind would drop them without a word, and each narrows what runs: `tools: [read_file]` on
 * `kind: file` still offered all eleven tools (`run_command` too), `approval_mode: always` on a
 * `kind: function` ran it unasked. Fail closed: written where no kind reads it, each is an error.
 */
const ENTRY_FIELD_KINDS: Readonly<Record<string, readonly string[]>> = {
  approvalMode: ['mcp', 'openapi'],
  tools: ['mcp'],
  toolName: ['mcp'],
  server: ['mcp'],
  serverUrl: ['mcp'],
  specUrl: ['openapi'],
  operationId: ['openapi'],
};

/** Each misplaced field of a `tools:` entry, with the message that says where it belongs. */
export function misplacedEntryFields(decl: ToolDecl): { field: string; message: string }[] {
  const found: { field: string; message: string }[] = [];
  for (const [field, kinds] of Object.entries(ENTRY_FIELD_KINDS)) {
    if (decl[field as keyof ToolDecl] === undefined || kinds.includes(decl.kind)) continue;
    found.push({
      field,
      message: `'${field}' beside config applies to kind: ${kinds.join(' and kind: ')}; kind: ${decl.kind} does not read it, so it would be ignored (a misplaced security setting is an error)`,
    });
  }
  return found;
}
